"""Similar lines: groups of live lines that probably say one thing (repeat) or contradict each other (conflict), and
the live lines most like a new one. It only suggests; Dad decides, and every decision is rows with his reason.

A layer above the log (it reads notebooks.log, never the reverse), beside the card and the agents, who call it:
engine.py is the method (no Django), selectors.py the reads with their per-notebook cache, services.py the
"Not alike" marks (their own append-only table, never the log).
"""
