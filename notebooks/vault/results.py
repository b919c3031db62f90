"""What a sweep did to each file, and the words its report and commit messages use for rows."""

from dataclasses import dataclass, field
from itertools import groupby

from notebooks.log.rules.checks import shown

from .fileformat import SUFFIX


@dataclass
class FileResult:
    title: str
    appended: int = 0  # database rows written to the file
    imported: tuple[int, ...] = ()  # seqs of rows imported from an outside append
    imported_by: tuple[str, ...] = ()
    problem: str = ""  # rewritten, truncated, deleted, refused_append
    message: str = ""
    evidence_ref: str = ""
    evidence_sha: str = ""
    waiting: str = ""  # why the file was left for the next sweep
    redacted: tuple[int, ...] = ()  # rows written again without words redacted since the vault wrote them

    @property
    def file(self) -> str:
        return self.title + SUFFIX


@dataclass
class SweepResult:
    files: list[FileResult]
    commit: str | None
    head: str
    claimed: frozenset[str] = frozenset()
    ignored: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)  # semantic commits of lands git had missed

    @property
    def problems(self) -> list[FileResult]:
        return [f for f in self.files if f.problem]

    def report(self) -> list[str]:
        out = [f"committed the missed land {sha[:12]}" for sha in self.repaired]
        for f in self.files:
            if f.imported:
                who = ", ".join(sorted(set(f.imported_by)))
                out.append(f"{f.file}: imported {len(f.imported)} appended row(s) (seq {ranges(f.imported)}, by {who})")
            if f.redacted:
                out.append(f"{f.file}: took redacted words out of {rows_named(f.redacted)}")
            if f.appended:
                held = " (claimed: written, not committed)" if f.title in self.claimed else ""
                out.append(f"{f.file}: wrote {f.appended} row(s){held}")
            if f.waiting:
                out.append(f"{f.file}: left for the next sweep: {f.waiting}")
        out += [f"ignored {shown(name)}: not a notebook title" for name in self.ignored]
        if self.commit:
            out.append(f"committed {self.commit[:12]}")
        return [shown(line, 2000) for line in out]  # file names and actors come from outside: one line each


def rows_named(seqs: "tuple[int, ...] | list[int]") -> str:
    return f"row {seqs[0]}" if len(seqs) == 1 else f"rows {ranges(seqs)}"


def row_count(n: int) -> str:
    return f"{n} row" if n == 1 else f"{n} rows"


def ranges(seqs: "tuple[int, ...] | list[int]") -> str:
    """41, 42, 43, 45 → '41-43, 45'."""
    runs = [[s for _, s in run] for _, run in groupby(enumerate(sorted(seqs)), lambda at: at[1] - at[0])]
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)
