"""The peer: one record per line kept by django-simple-history, installed only by bench/settings.py."""
