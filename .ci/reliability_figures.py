"""Print the figures `make reliability` recorded as a Markdown table (for docs/RELIABILITY.md)."""

import json
import sys
from pathlib import Path

rows = [json.loads(line) for line in Path(sys.argv[1]).read_text().splitlines() if line.strip()]
print("| test | database | figures |")
print("|---|---|---|")
for row in rows:
    test, vendor = row.pop("test"), row.pop("vendor")
    figures = ", ".join(f"{k}: {v}" for k, v in row.items()).replace("|", "/")  # a pipe would end the cell
    print(f"| {test} | {vendor} | {figures} |")
