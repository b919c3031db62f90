"""Similar lines: groups of live lines that probably say one thing (repeat) or contradict each other (conflict), and
the live lines most like a new one. It only suggests; Dad decides. engine.py is the method (no Django), selectors.py
the reads and their cache, services.py the "Not alike" marks (their own append-only table, never the log)."""
