"""Dad's Notebook card: short views. htmx gets the fragment it swaps, a plain POST a redirect; a form refused in
place answers 422 (bad input) or 409 (the line changed meanwhile), which base.html has htmx swap like a 200."""
