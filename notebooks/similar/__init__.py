"""Similar lines: groups of live lines that repeat or contradict each other, and the lines most like a new one. It only
suggests; Dad decides. engine.py is the method (no Django), selectors.py the reads, services.py the Not alike marks."""
