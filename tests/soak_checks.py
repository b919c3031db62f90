"""The soak's checks and report (tests/soak.py): every acknowledged write exactly once, gapless numbers, verified
chains, vault files equal to their exports, frozen views that read the same again, 5xx only inside the faults'
windows, and the words of every redaction gone from every answer, file, row and database page."""

import json
import os
import signal
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

from notebook_site.web_servers import server_name
from tests.soak_actors import AGENT_BOOKS, NO_ROWS, OUTSIDE_AGENT, OUTSIDE_BOOKS, SIGNING_WRITERS

MARK = "[redacted: "


def one_write(rows: list[dict[str, Any]], expected: int, landed: bool | None = None) -> tuple[str, str]:
    """How the rows carrying one acknowledged write's token stand (docs/file-format.md, "Sessions: proposals and
    landed rows"): ("ok", ""), or ("lost" | "doubled" | "refused_left" | "mismatched", what is wrong).

    Outside a session a write is its `expected` plain rows. In a session it is its `expected` proposals (`op:
    "propose"`), each landed at most once by a landed copy naming it in `lands`: exactly once when its session
    landed (`landed` True), never when the land was refused (False), either when the land went unanswered (None).
    """
    proposals = {r["seq"]: r for r in rows if r.get("op") == "propose"}
    copies = [r for r in rows if r.get("lands") is not None]
    plain = [r for r in rows if r.get("op") != "propose" and r.get("lands") is None]
    own = len(proposals) + len(plain)
    copied: dict[int, list[dict[str, Any]]] = {seq: [] for seq in proposals}
    strays = []
    for c in copies:
        (copied[c["lands"]] if c["lands"] in copied else strays).append(c)
    seqs = sorted(r["seq"] for r in rows)
    if not own:
        return "lost", f"no row of its own (found seqs {seqs})"
    if strays:
        return "doubled", f"landed copies of no proposal of this write: seqs {[c['seq'] for c in strays]}"
    twice = sorted(seq for seq, found in copied.items() if len(found) > 1)
    if twice:
        return "doubled", f"proposals landed more than once: seqs {twice}"
    if proposals and plain:
        return "doubled", f"both proposals and plain rows (seqs {seqs})"
    if own > expected:
        return "doubled", f"{own} rows of its own, not {expected} (seqs {seqs})"
    if own < expected:
        return "lost", f"{own} rows of its own, not {expected} (seqs {seqs})"
    for seq, found in copied.items():
        p = proposals[seq]
        if found and (found[0].get("op") != p.get("proposes") or found[0].get("n") != p.get("n")):
            return "mismatched", f"the landed copy at seq {found[0]['seq']} is not the proposal at seq {seq}"
        if found and found[0]["seq"] < seq:
            return "mismatched", f"the landed copy at seq {found[0]['seq']} comes before its proposal at seq {seq}"
    unlanded = sorted(seq for seq, found in copied.items() if not found)
    if landed is True and unlanded:
        return "lost", f"its session landed, but not its proposals at seqs {unlanded}"
    if landed is False and len(unlanded) < len(copied):
        return "refused_left", "its session's land was refused, yet its proposals have landed copies"
    return "ok", ""


def numbered(row: dict[str, Any]) -> bool:
    """Whether the row gave a line its number: a plain add, or a proposed add (its landed copy keeps it)."""
    if row.get("op") == "propose":
        return row.get("proposes") == "add"
    return row.get("op") == "add" and row.get("lands") is None


def unknown(w: Any) -> bool:
    """Whether a write's outcome is unknown: no answer, or a 503 saying its connection was lost mid-write."""
    return w.status == 0 or (w.status == 503 and "may or may not stand" in str(w.answer))


def landed(w: Any) -> bool | None:
    """Whether the session a write was made in landed: None outside a session, or when the land went unanswered."""
    if w.land is None:
        return None
    return None if unknown(w.land) else w.land.status == 200


class Checks:
    """Mixed into Soak."""

    def check(self) -> int:
        for f in self.faults:  # recovered: the first write sent after the fault ended that was acknowledged
            after = [
                w.answered for w in self.writes if w.sent >= f.end and 200 <= w.status < 400 and w.kind != "outside-add"
            ]
            f.recovered = min(after) if after else None
        self.secrets = {w.secret for w in self.writes if w.kind == "card-redact" and w.status in (200, 302)}
        frozen_again = []
        for fr in self.frozen[:: max(1, len(self.frozen) // 200)]:
            path = f"/api/notebooks/{fr['title']}/lines?until={fr['until']}&limit=1000"
            status, answer = self.api("GET", path, "reader")
            same = status == 200 and self.same_lines(answer["lines"], fr["lines"]) and answer["seq"] == fr["seq"]
            frozen_again.append(same)
            if not same and status == 200:
                before = {json.dumps(x, sort_keys=True) for x in fr["lines"]}
                again = {json.dumps(x, sort_keys=True) for x in answer["lines"]}
                self.problems.append(
                    f"frozen view of {fr['title']} until {fr['until']}: seq {fr['seq']} then {answer['seq']}; "
                    f"only then: {sorted(before - again)[:2]}; only now: {sorted(again - before)[:2]}"
                )
        self.served_secrets = self.secrets_served()
        self.server.send_signal(signal.SIGTERM)
        self.server.wait(30)
        sync = self.manage("notebook", "vault", "sync", check=False)
        if sync.returncode != 0:
            self.problems.append(f"the final sweep exited {sync.returncode}: {sync.stderr.strip()[-500:]}")
        alarms = self.manage("notebook", "vault", "alarms", "--all", "--json", check=False).stdout
        try:
            self.alarms = json.loads(alarms or "[]")
        except ValueError:
            self.alarms = []
        verify = self.manage("notebook", "verify", check=False)
        if verify.returncode != 0:
            self.problems.append(
                f"notebook verify exited {verify.returncode}: {(verify.stdout + verify.stderr)[-800:]}"
            )
        rows = self.check_files()
        self.check_secrets(rows)
        acked, lost, doubled, refused_left, unanswered_landed = self.check_writes(rows)
        if not all(frozen_again):
            self.problems.append(f"frozen views that read differently afterwards: {frozen_again.count(False)}")
        if self.mcp_failure:
            self.problems.append(f"the MCP client stopped: {self.mcp_failure}")
        return self.report(acked, lost, doubled, refused_left, unanswered_landed, frozen_again, rows)

    def same_lines(self, fresh: list[dict[str, Any]], was: list[dict[str, Any]]) -> bool:
        """Equal, but for words redacted since they were read (then marked)."""

        def plain(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
            gone = {w.secret for w in self.writes if w.kind == "card-redact"}  # answered or not: it may have landed
            return [{**x, "text": "<R>"} if x["text"] in gone or x["text"].startswith(MARK) else x for x in lines]

        return plain(fresh) == plain(was)

    def check_files(self) -> dict[str, list[dict[str, Any]]]:
        rows: dict[str, list[dict[str, Any]]] = {}
        for title in [*AGENT_BOOKS, *OUTSIDE_BOOKS]:
            exported = self.manage("notebook", "export", title, check=False).stdout
            rows[title] = [json.loads(x) for x in exported.splitlines() if x.strip()]
            file = self.vault / f"{title}.jsonl"
            if not file.exists() or file.read_text(encoding="utf-8") != exported:
                self.problems.append(f"vault file {title}.jsonl differs from its export")
            seqs = [r["seq"] for r in rows[title]]
            if seqs != list(range(1, len(seqs) + 1)):
                self.problems.append(f"{title}: seqs are not gapless: {seqs[:10]}…")
            # A number is given once: to a plain add or a proposed one; an add's landed copy keeps its proposal's.
            added = sorted(r["n"] for r in rows[title] if numbered(r))
            if added != list(range(1, len(added) + 1)):
                self.problems.append(f"{title}: line numbers are doubled or have gaps")
        return rows

    # ----- redactions ------------------------------------------------------------------------------------------------

    def secrets_served(self) -> int:
        """Redacted words in any answer of the card (each worker's rendered lines) or the API, read now."""
        if not self.secrets:
            return 0
        bodies = []
        for title in AGENT_BOOKS:
            for _ in range(6):  # three workers, each with its own kept fragments
                bodies.append(self.card_get(f"/notebooks/{title}/")[1])
            for part in ("lines?limit=1000", "turn", "rows?limit=1000"):  # the most a page holds, as before cursors
                bodies.append(json.dumps(self.api("GET", f"/api/notebooks/{title}/{part}", "reader")[1]).encode())
        for w in self.writes:
            if w.kind == "card-redact" and w.status in (200, 302):
                bodies.append(self.card_get(f"/notebooks/{w.notebook}/lines/{w.n}/history/")[1])
        found = sum(any(s.encode() in b for b in bodies) for s in self.secrets)
        if found:
            self.problems.append(f"redacted words still served by the card or the API: {found} of {len(self.secrets)}")
        return found

    def check_secrets(self, rows: dict[str, list[dict[str, Any]]]) -> None:
        """No row, vault file or database page holds redacted words."""
        if not self.secrets:
            self.secret_report = "none redacted"
            return
        exported = json.dumps(rows)
        files = b"".join(p.read_bytes() for p in self.vault.glob("*.jsonl"))
        raw, where = self.database_bytes()
        counts = {
            "rows": sum(s in exported for s in self.secrets),
            "vault files": sum(s.encode() in files for s in self.secrets),
            where: sum(s.encode() in raw for s in self.secrets),
        }
        self.secret_report = f"{len(self.secrets)} redacted; still found in " + ", ".join(
            f"{k} {v}" for k, v in counts.items()
        )
        if any(counts.values()):
            self.problems.append(f"redacted words left behind: {counts}")

    def database_bytes(self) -> tuple[bytes, str]:
        if self.engine == "sqlite":
            path = self.dbfs / "notebooks.sqlite3"
            with sqlite3.connect(path) as conn:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # what the WAL held goes to the file
            raw = b"".join(p.read_bytes() for p in path.parent.glob("notebooks.sqlite3*"))
            return raw, "the SQLite files (after a checkpoint)"
        dump = subprocess.run(
            ["pg_dump", "--data-only", "-h", self.pg_server["host"], "-p", str(self.pg_server["port"]),
             "-U", self.pg_server["user"], self.db],
            capture_output=True, timeout=300, check=True,
        )  # fmt: skip
        return dump.stdout, "pg_dump"

    # ----- the writes --------------------------------------------------------------------------------------------

    def check_writes(self, rows: dict[str, list[dict[str, Any]]]) -> tuple[int, int, int, int, int]:
        by_why: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for title, found in rows.items():
            for r in found:
                by_why.setdefault((title, r.get("why") or ""), []).append(r)
        acked = lost = doubled = refused_left = unanswered_landed = 0
        self.outside_rows = {
            w: {
                "appended": 0,
                "imported": 0,
                "of them as its writer": 0,
                "as the outside agent": 0,
                "refused with an alarm (kept as evidence)": 0,
                "lost": 0,
            }
            for w in OUTSIDE_BOOKS.values()
        }
        evidence = self.evidence()
        for w in self.writes:
            if w.kind in NO_ROWS:
                continue
            mine = by_why.get((w.notebook, w.token), [])
            ok = 200 <= w.status < 400
            if w.kind == "outside-add":  # no answer to the writer: imported once, or refused with an alarm
                tally = self.outside_rows[w.who]
                verdict, _ = one_write(mine, 1)
                tally["appended"] += ok
                tally["imported"] += ok and verdict == "ok"
                if ok and verdict == "ok":  # a signed writer's rows are its own; an unsigned one's the outside agent's
                    by = mine[0].get("by")
                    tally["of them as its writer"] += by == w.who
                    tally["as the outside agent"] += by == OUTSIDE_AGENT
                    expected = w.who if w.who in SIGNING_WRITERS else OUTSIDE_AGENT
                    if by != expected:
                        self.problems.append(f"an outside row of {w.who} ({w.token!r}) is by {by}, not {expected}")
                kept = any(w.token in e for e in evidence.get(w.notebook, []))
                tally["refused with an alarm (kept as evidence)"] += ok and not mine and kept
                tally["lost"] += ok and not mine and not kept
                doubled += verdict == "doubled"
                continue
            if ok:
                acked += 1
                verdict, why = one_write(mine, w.rows, landed(w))
                said = f"{w.kind} by {w.who} ({w.token!r}) answered {w.status}: {why}"
                lost += verdict == "lost"
                doubled += verdict == "doubled"
                refused_left += verdict == "refused_left"
                if verdict != "ok":
                    self.problems.append(("LOST: " if verdict == "lost" else "") + said)
                elif w.seqs and sorted(w.seqs) != sorted(r["seq"] for r in mine if r.get("lands") is None):
                    self.problems.append(
                        f"{w.kind} by {w.who}: answered seqs {w.seqs}, found {[r['seq'] for r in mine]}"
                    )
            elif unknown(w):
                unanswered_landed += bool(mine)
            elif mine:
                refused_left += 1
                self.problems.append(f"refused {w.kind} by {w.who} ({w.status}) left {len(mine)} rows")
        for who, tally in self.outside_rows.items():
            refused = tally["refused with an alarm (kept as evidence)"]
            if tally["lost"] or (refused and who == "harness-locked"):  # under the lock, every valid row goes in
                self.problems.append(f"valid rows appended by {who} and not imported: {tally}")
        tokens = {(w.notebook, w.token) for w in self.writes}
        strays = [k for k, v in by_why.items() if k not in tokens and k[1].startswith("soak ") and v]
        self.problems += [f"a row nobody wrote: {k}" for k in strays]
        return acked, lost, doubled, refused_left, unanswered_landed

    def evidence(self) -> dict[str, list[str]]:
        """The files the vault refused, as kept on their evidence branches, by title."""
        kept: dict[str, list[str]] = {}
        for a in self.alarms:
            shown = subprocess.run(
                ["git", "--git-dir", str(self.vault / ".git"), "show", f"{a['evidence_ref']}:{a['title']}.jsonl"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            kept.setdefault(a["title"], []).append(shown.stdout)
        return kept

    # ----- the report ----------------------------------------------------------------------------------------------

    def in_window(self, t: float) -> bool:
        return any(f.start - 0.5 <= t <= max(f.end, f.recovered or f.end) + 2 for f in self.faults)

    def during(self, f: Any) -> str:
        """The answers to the writes sent while a fault lasted, by status."""
        seen: dict[str, int] = {}
        for w in self.writes:
            if f.start <= w.sent <= f.end and w.kind != "outside-add":
                label = "no answer" if w.status == 0 else str(w.status)
                seen[label] = seen.get(label, 0) + 1
        return ", ".join(f"{k} {v}" for k, v in sorted(seen.items())) or "none sent"

    def report(
        self,
        acked: int,
        lost: int,
        doubled: int,
        refused_left: int,
        unanswered_landed: int,
        frozen_again: list[bool],
        rows: dict[str, list],
    ) -> int:
        kinds: dict[str, dict[str, int]] = {}
        for w in self.writes:
            k = kinds.setdefault(w.kind, {})
            label = "no answer" if w.status == 0 else str(w.status)
            k[label] = k.get(label, 0) + 1
        fives = [(w.answered, w.status) for w in self.writes if w.status >= 500] + self.read_5xx
        inside = sum(self.in_window(t) for t, _ in fives)
        outside = len(fives) - inside
        if outside:
            self.problems.append(f"{outside} answers 5xx outside the faults' windows")
        if self.stale_304:
            self.problems.append(f"{len(self.stale_304)} conditional reads answered 304 over a newer write: "
                                 + "; ".join(self.stale_304[:3]))  # fmt: skip
        engine = "SQLite (on a tmpfs filled up twice)" if self.engine == "sqlite" else f"PostgreSQL ({self.db})"
        t0 = self.faults[0].start if self.faults else 0
        lines = [
            f"soak: {self.elapsed:.0f} s on {engine}, {server_name(os.environ)} with 3 workers on :{self.port}",
            "operations (status: count):",
            *[f"  {k}: {', '.join(f'{s} {c}' for s, c in sorted(v.items()))}" for k, v in sorted(kinds.items())],
            f"  reads: live {self.reads['live']}, frozen {self.reads['frozen']}, card pages {self.reads['card']}, "
            f"MCP views {self.reads['mcp']}; conditional: in full {self.reads['conditional']}, 304 "
            f"{self.reads['unchanged']}, 304 over a newer write {len(self.stale_304)}",
            "faults:",
            *[
                f"  {f.kind} at +{f.start - t0:.0f} s ({f.detail}); lasted {f.end - f.start:.1f} s; "
                + (f"next write acknowledged {f.recovered - f.end:.2f} s after" if f.recovered else "no write after it")
                + f"; writes sent during it answered: {self.during(f)}"
                for f in self.faults
            ],
            f"rows in the log: {', '.join(f'{t} {len(r)}' for t, r in rows.items())}",
            f"writes acknowledged: {acked}; lost: {lost}; duplicated: {doubled}; "
            f"refused that left rows: {refused_left}",
            f"writes with no answer, or lost with their connection (503): {sum(map(unknown, self.writes))}, "
            f"of which landed: {unanswered_landed}",
            *[
                f"outside writer rows ({'under the lock' if who == 'harness-locked' else 'ignoring the lock'}, "
                f"{'signed with a writer key' if who in SIGNING_WRITERS else 'unsigned'}, "
                f"{[t for t, w in OUTSIDE_BOOKS.items() if w == who][0]}): "
                + ", ".join(f"{k} {v}" for k, v in tally.items())
                for who, tally in self.outside_rows.items()
            ],
            f"redactions: {self.secret_report}; in the card's and the API's answers {self.served_secrets}",
            f"vault alarms: {len(self.alarms)}"
            + "".join(
                f"\n  {a.get('file', a.get('title', ''))}: {str(a.get('message', a))[:300]}" for a in self.alarms[:3]
            ),
            f"frozen views read again: {len(frozen_again)}, equal: {sum(frozen_again)}",
            f"5xx: inside the faults' windows {inside}, outside {outside}",
            "verify: " + ("ok" if not any("verify" in p for p in self.problems) else "FAILED"),
        ]
        self.report_text = "\n".join(lines + [f"PROBLEM: {p}" for p in self.problems])
        print(self.report_text, flush=True)
        Path(os.fspath(self.root), "var").mkdir(exist_ok=True)
        return 1 if self.problems else 0
