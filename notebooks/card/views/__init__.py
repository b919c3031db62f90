"""Dad's Notebook card: short views that check access, validate, call a service or a selector, and render.

An htmx request gets back the fragment it swaps; a plain form POST redirects, so every action works without
JavaScript. A form refused in place answers 422 (bad input) or 409 (the line changed meanwhile), with the form and
its message; base.html tells htmx to swap those two statuses like a 200."""
