"""Fail CI unless both databases really ran the suite with nothing skipped, browser tests included: SQLite all of
it, PostgreSQL every test that touches a database but the browser's client side (.ci/run passes it --database-only)
and those marked vendor("sqlite").
"""

import json
import sys
from pathlib import Path

expected = {"var/report-sqlite.json": "sqlite", "var/report-postgresql.json": "postgresql"}
failed = False
for path in sys.argv[1:]:
    p = Path(path)
    if not p.exists():
        print(f"CI: {path} is missing: that part of the suite did not run")
        failed = True
        continue
    report = json.loads(p.read_text())
    vendor = expected.get(path)
    problems = []
    if vendor and report.get("vendor") != vendor:
        problems.append(f"ran on {report.get('vendor')}, not {vendor}")
    if report.get("passed", 0) == 0:
        problems.append("no test passed")
    if report.get("skipped", 0):
        problems.append(f"{report['skipped']} test(s) skipped")
    if report.get("failed", 0) or report.get("exitstatus", 1) != 0:
        problems.append("tests failed")
    if report.get("browser_passed", 0) == 0:
        problems.append("the browser tests did not run")
    if vendor == "sqlite" and report.get("database_only", True):
        problems.append("ran only the tests that touch a database: the others ran nowhere")
    print(
        f"CI: {path}: {report.get('passed', 0)} passed, {report.get('browser_passed', 0)} in the browser"
        + (f"; PROBLEM: {'; '.join(problems)}" if problems else "")
    )
    failed |= bool(problems)
sys.exit(1 if failed else 0)
