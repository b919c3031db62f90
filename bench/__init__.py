"""The benchmark suite (`make bench`): speed and scale of the notebook's reads and writes, side by side
with the floor, the naive ORM fold and django-simple-history. Never part of `make test`."""
