"""`python -m bench.similar [--quick] [--tune]`: the similar-lines engine, chosen by measurement.

Quality: on the labelled notebooks (bench/similar_data), each method's pair recall and precision of "repeat" and
of "conflict" and the share of contradicting pairs labelled conflict, side by side. A predicted group of k lines
yields k(k-1)/2 pairs of its kind; a labelled group likewise; recall = labelled pairs predicted / labelled pairs,
precision = predicted pairs labelled / predicted pairs. Every method's thresholds were tuned (--tune: a grid) on
hollow-knight only; zelda-oot and stardew-valley are held out; the learned method is trained on two games and
reported on the third. Speed: `notebook similar` (cold) at 1,000 and 10,000 live lines, the
card's groups warm, and the API's add without and with `nearest_for` after it, side by side.
Run alone it makes its own scratch SQLite database under var/bench/; `python -m bench` runs it too.
"""

import argparse
import io
import itertools
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

# (repeat_at, conflict_at) per method, chosen by --tune on hollow-knight only (zelda-oot never tuned on), every
# method's pairs through the engine's own floor and closest-neighbours cap (as_pairs).
TUNED = {
    "tfidf": (0.275, 0.30),
    "tfidf+words": (0.275, 0.35),
    "rapidfuzz": (0.525, 0.60),
    "wordllama": (0.375, 0.80),
    "mean": (0.325, 0.65),
    "either-or-both": (0.625, 0.65),
    "word alignment": (0.375, 0.50),
}
# either-or-both: a pair is alike when TF-IDF >= 0.5 or wordllama >= 0.55 or both >= 0.2 and 0.45 (chosen by a grid
# on hollow-knight only), as a score: the largest of those ratios, capped at 1.5 and scaled to 0..1.
EITHER = (0.5, 0.55, 0.2, 0.45)
CHOSEN = "tfidf"
SPEED_POOL = (
    "hollow-knight",
    "zelda-oot",
)  # the generated notebooks' words, unchanged since the speed was first measured
# The operating point favours recall (a wrong group costs Dad one click on Not alike, a missed one a search and a
# merge by hand): the repeat threshold with the most recall at repeat precision 0.65 to 0.70 on the tuned game. The
# old target, recall 0.85 at precision 0.80, is retired: no method measured here reaches it (the table below).
BAND = (0.65, 0.70)
OLD_REPEAT_AT = 0.275  # the point before, chosen for F1; each game's recall there is what the new point must keep


def _wordllama() -> object:
    import wordllama
    from wordllama import WordLlama

    # Offline only: the weights ship in the wheel; nothing is ever fetched.
    return WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)


def methods() -> dict[str, Callable[[list[str]], np.ndarray]]:
    """Each method's similarity matrix of a notebook's lines."""
    from rapidfuzz import fuzz, process

    from bench import similar_learned
    from notebooks.similar import engine

    wl = _wordllama()

    def tfidf(texts: list[str]) -> np.ndarray:
        matrix = engine.tfidf_matrix(texts)[1]
        return (matrix @ matrix.T).toarray()

    def embedding(texts: list[str]) -> np.ndarray:
        x = wl.embed([engine.normalized(t) for t in texts], norm=True)
        return x @ x.T

    def fuzzy(texts: list[str]) -> np.ndarray:
        t = [engine.normalized(x) for x in texts]
        return process.cdist(t, t, scorer=fuzz.token_set_ratio) / 100

    def word_stems(texts: list[str]) -> np.ndarray:
        from sklearn.feature_extraction.text import TfidfVectorizer

        def stem(w: str) -> str:
            return next((w[: -len(x)] for x in ("ing", "ed", "es", "s") if len(w) > len(x) + 2 and w.endswith(x)), w)

        lines = [" ".join(stem(w) for w in engine.words(t) if w not in engine.STOP) for t in texts]
        matrix = TfidfVectorizer(analyzer="word", token_pattern=r"\S+", sublinear_tf=True).fit_transform(lines)
        return (matrix @ matrix.T).toarray()

    def either(texts: list[str]) -> np.ndarray:
        a, b, a2, b2 = EITHER
        c, e = tfidf(texts), embedding(texts)
        return np.minimum(np.maximum.reduce([c / a, e / b, np.minimum(c / a2, e / b2)]), 1.5) / 1.5

    def mean(texts: list[str]) -> np.ndarray:
        return (tfidf(texts) + embedding(texts)) / 2

    def stacked(texts: list[str]) -> np.ndarray:
        return (tfidf(texts) + word_stems(texts)) / 2

    def aligned(texts: list[str]) -> np.ndarray:
        return similar_learned.alignment(texts, wl)

    return {"tfidf": tfidf, "tfidf+words": stacked, "rapidfuzz": fuzzy, "wordllama": embedding, "mean": mean,
            "either-or-both": either, "word alignment": aligned}  # fmt: skip


def as_pairs(matrix: np.ndarray) -> dict[tuple[int, int], float]:
    """The pairs the engine keeps of a similarity matrix (its floor, each line's closest), so every method is
    measured through the pipeline that ships."""
    from notebooks.similar import engine

    rows, cols = np.indices(matrix.shape)
    return engine.top_pairs(rows.ravel(), cols.ravel(), matrix.ravel())


def scores(labelled: object, found: list) -> dict[str, float]:
    def rp(truth: set, got: set) -> tuple[float, float]:
        return (len(truth & got) / len(truth) if truth else 1.0, len(truth & got) / len(got) if got else 1.0)

    pr = {p for g in found if g.kind == "repeat" for p in itertools.combinations(g.lines, 2)}
    pc = {p for g in found if g.kind == "conflict" for p in itertools.combinations(g.lines, 2)}
    rr, rprec = rp(labelled.pairs("repeat"), pr)
    cr, cprec = rp(labelled.pairs("conflict"), pc)
    told = labelled.contradicting()
    return {"repeat_recall": rr, "repeat_precision": rprec, "conflict_recall": cr, "conflict_precision": cprec,
            "contradicting_labelled_conflict": len(told & pc) / len(told), "groups": len(found)}  # fmt: skip


def quality(tune: bool = False) -> dict:
    from bench import similar_data, similar_learned
    from notebooks.similar import engine

    data = {game: similar_data.load(game) for game in similar_data.GAMES}
    out: dict = {"tuned_on": similar_data.TUNED_ON, "methods": {}}
    for name, fn in methods().items():
        matrices = {game: fn([t for _, t, _ in d.lines]) for game, d in data.items()}
        sims = {game: as_pairs(m) for game, m in matrices.items()}
        at = tune_on([(data[similar_data.TUNED_ON], sims[similar_data.TUNED_ON])]) if tune else TUNED[name]
        out["methods"][name] = {"repeat_at": at[0], "conflict_at": at[1], "games": {}}
        for game, d in data.items():
            found = engine.group(d.lines, sims[game], repeat_at=at[0], conflict_at=at[1])
            out["methods"][name]["games"][game] = scores(d, found) | similar_learned.ceilings(
                d, matrices[game], sims[game], at[1]
            )
    out["methods"][LEARNED] = similar_learned.learned(data)
    # The chosen method as it ships (engine.groups itself, its own constants): the figures the targets read.
    out["shipped"] = {game: scores(d, engine.groups(d.lines)) for game, d in data.items()}
    out["before"] = {
        game: scores(d, engine.group(d.lines, engine.tfidf_pairs([t for _, t, _ in d.lines]), repeat_at=OLD_REPEAT_AT))
        for game, d in data.items()
    }
    out["repeat_at"], out["band"] = engine.REPEAT_AT, operating_point(data[similar_data.TUNED_ON])
    return out


def tune_on(games: list[tuple[object, dict]], quiet: bool = False) -> tuple[float, float]:
    """The thresholds that do best on the games given (summed): repeat F1, plus half the contradicting share and a
    quarter of conflict F1 (a grid; printed so the constants above can be checked)."""
    from notebooks.similar import engine

    def f1(r: float, p: float) -> float:
        return 2 * r * p / (r + p) if r + p else 0.0

    best = None
    for r in np.arange(0.2, 0.9, 0.025):
        for c in np.arange(0.3, 0.9, 0.05):
            goal = 0.0
            for labelled, sim in games:
                s = scores(labelled, engine.group(labelled.lines, sim, repeat_at=r, conflict_at=c))
                goal += f1(s["repeat_recall"], s["repeat_precision"]) + 0.5 * s["contradicting_labelled_conflict"]
                goal += 0.25 * f1(s["conflict_recall"], s["conflict_precision"])
            if best is None or goal > best[0]:
                best = (goal, round(float(r), 3), round(float(c), 3))
    if not quiet:
        print(f"tuned: {best[1:]}", file=sys.stderr)
    return best[1], best[2]


def operating_point(labelled: object) -> dict:
    """The repeat threshold with the most repeat recall whose precision is within BAND on `labelled` (a grid of
    0.0125; ties go to the higher threshold), the engine's other constants as they ship."""
    from notebooks.similar import engine

    sim = engine.tfidf_pairs([t for _, t, _ in labelled.lines])
    best: dict = {}
    for r in np.arange(0.15, 0.40, 0.0125):
        s = scores(labelled, engine.group(labelled.lines, sim, repeat_at=float(r)))
        inside = BAND[0] <= round(s["repeat_precision"], 2) <= BAND[1]
        if inside and (not best or s["repeat_recall"] >= best["recall"]):
            best = {"repeat_at": round(float(r), 4), "recall": s["repeat_recall"], "precision": s["repeat_precision"]}
    return best


LEARNED = "learned (logistic regression, leave one game out)"


# ----- speed --------------------------------------------------------------------------------------------------


def many_lines(count: int, seed: int) -> list[str]:
    """`count` lines written like the labelled ones: the first half of one labelled line joined to the second half of
    another, with a word or two swapped in, so that a big notebook holds mostly different lines and some alike."""
    from bench import similar_data

    pool = [t.rstrip(".").split() for game in SPEED_POOL for _, t, _ in similar_data.load(game).lines]
    extra = "again later first carefully twice quickly near the boss room wall door ledge gap bench chest".split()
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        a, b = rng.choice(pool), rng.choice(pool)
        w = a[: max(1, len(a) // 2)] + b[len(b) // 2 :]
        for _ in range(rng.randint(0, 2)):
            w.insert(rng.randrange(len(w) + 1), rng.choice(extra))
        out.append(" ".join(w) + ".")
    return out


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def speed(quick: bool) -> dict:
    from django.core.management import call_command
    from django.test import Client

    from notebooks.agents import tokens
    from notebooks.log.files import imports
    from notebooks.log.views import kept, selectors
    from notebooks.similar import selectors as similar

    out: dict = {}
    for size in (1000, 10_000):
        title = f"similar-{size}"
        rows = [json.dumps({"op": "add", "n": n, "text": t, "source": "seen", "by": "pippa", "at": 1.7e9 + n})
                for n, t in enumerate(many_lines(size, seed=size), start=1)]  # fmt: skip
        nb = imports.import_notebook(title=title, lines=rows, by="bench").notebook
        runs = []
        for _ in range(1 if quick and size > 1000 else 3):
            kept.forget()
            similar.forget()
            every = ("notebook", "similar", title, "--json", "--all")  # the engine's own cost, past the card's budget
            runs.append(timed(lambda every=every: call_command(*every, stdout=io.StringIO())))
        out[f"cli_{size}"] = statistics.median(runs)
        out[f"groups_{size}"] = len(similar.groups_for(nb, similar.UNBOUNDED))
        if size == 1000:
            similar.groups_for(nb)
            out["card_warm_1000"] = statistics.median(timed(lambda nb=nb: similar.groups_for(nb)) for _ in range(50))
            out.update(api_add(Client(), title, tokens, similar, selectors, 40 if quick else 200))
    return out


def api_add(client: object, title: str, tokens: object, similar: object, selectors: object, turns: int) -> dict:
    """The API's add alone against the same add followed by nearest_for, taking turns (the median of paired ratios)."""
    url = f"/api/notebooks/{title}/lines"
    headers = {"HTTP_AUTHORIZATION": f"Bearer {tokens.issue(actor='pippa', by='bench').secret}"}
    nb = selectors.get_notebook(title)
    texts = many_lines(2 * turns + 2, seed=7)

    def add(i: int, near: bool) -> None:
        body = {"text": texts[i], "source": "seen", "why": "bench"}
        response = client.post(url, body, content_type="application/json", **headers)
        assert response.status_code == 201, response.content
        if near:
            similar.nearest_for(nb, texts[i], exclude=response.json()["n"])

    add(0, True)
    add(1, True)  # warm both paths: the index is fitted once, then follows the adds
    alone, near = [], []
    for i in range(turns):
        a = timed(lambda i=i: add(2 + 2 * i, False))
        b = timed(lambda i=i: add(3 + 2 * i, True))
        alone.append(a)
        near.append(b)
    ratios = [b / a for a, b in zip(alone, near, strict=True)]
    return {"api_add": statistics.median(alone), "api_add_nearest": statistics.median(near),
            "api_add_ratio": statistics.median(ratios), "api_add_turns": turns}  # fmt: skip


# ----- targets and the report ---------------------------------------------------------------------------------


def targets(res: dict) -> list[tuple[str, str, str, str, str]]:
    from bench.report import ms

    out = []

    def row(target: str, figure: str, against: str, ratio: str, ok: bool | None) -> None:
        out.append((target, figure, against, ratio, "PASS" if ok else "FAIL" if ok is not None else "—"))

    q = res["quality"]
    band = q.get("band") or {}
    row(f"similar lines ({CHOSEN}): repeat_at is the operating point, the most recall at precision "
        f"{BAND[0]}–{BAND[1]} on {q['tuned_on']}", f"{q.get('repeat_at')}", f"{band.get('repeat_at')}", "",
        band.get("repeat_at") == q.get("repeat_at"))  # fmt: skip
    for game, s in q["shipped"].items():
        held = "tuned on it" if game == q["tuned_on"] else "held out"
        was = q["before"][game]
        row(f"similar lines ({CHOSEN}): repeat pair recall at the operating point ≥ at the old point "
            f"({OLD_REPEAT_AT}), {game} ({held})", f"{s['repeat_recall']:.2f} at {s['repeat_precision']:.2f}",
            f"{was['repeat_recall']:.2f} at {was['repeat_precision']:.2f}", "",
            s["repeat_recall"] >= was["repeat_recall"])  # fmt: skip
        row(f"similar lines ({CHOSEN}): most contradicting pairs labelled conflict, {game} ({held})",
            f"{s['contradicting_labelled_conflict']:.0%}", "> 50%", "",
            s["contradicting_labelled_conflict"] > 0.5)  # fmt: skip
    sp = res["speed"]
    for key, label, limit in (
        ("cli_1000", "`notebook similar`, 1,000 live lines (cold), ≤ 1 s", 1.0),
        ("cli_10000", "`notebook similar`, 10,000 live lines (cold), ≤ 10 s", 10.0),
        ("card_warm_1000", "card's similar groups warm, 1,000 live lines, ≤ 300 ms", 0.3),
    ):
        row(label, ms(sp[key]), ms(limit), f"{sp[key] / limit:.2f}x", sp[key] <= limit)
    row(f"API add with nearest_for ≤ 1.2x the add alone, 1,000 live lines (median of {sp['api_add_turns']} pairs)",
        ms(sp["api_add_nearest"]), ms(sp["api_add"]), f"{sp['api_add_ratio']:.2f}x",
        sp["api_add_ratio"] <= 1.2)  # fmt: skip
    return out


def methods_table(res: dict) -> list[str]:
    q = res["quality"]
    lines = ["| method (thresholds: repeat, conflict) | notebook | repeat recall | repeat precision | "
             "conflict recall | conflict precision | contradicting pairs labelled conflict | ceiling: groups | "
             "ceiling: raw pairs |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
    for name, m in q["methods"].items():
        for game, s in m["games"].items():
            if m.get("held_out"):
                at = s["thresholds"]
                held = f"held out; trained on {s['trained_on']}"
            else:
                at = (m["repeat_at"], m["conflict_at"])
                held = "tuned" if game == q["tuned_on"] else "held out"
            lines.append(f"| {name}{' (chosen)' if name == CHOSEN else ''} ({at[0]}, {at[1]}) | "
                         f"{game} ({held}) | {s['repeat_recall']:.2f} | {s['repeat_precision']:.2f} | "
                         f"{s['conflict_recall']:.2f} | {s['conflict_precision']:.2f} | "
                         f"{s['contradicting_labelled_conflict']:.0%} | {s.get('groups_recall_at_80', 0):.2f} | "
                         f"{s.get('raw_recall_at_80', 0):.2f} |")  # fmt: skip
    return lines


WHY = (
    "**The operating point.** Since 2026-12-02 the repeat threshold is chosen for recall: the one with the most "
    "repeat recall at precision 0.65 to 0.70 on the tuned game (operating_point), since a wrong group costs Dad one "
    "click on Not alike and a missed one a search and a merge by hand. The gain is small (TF-IDF cannot see a "
    "paraphrase that shares no word); what finds those is a helper brain's suggestions, which Dad decides beside "
    "the engine's groups (docs/card.md). The old target, recall 0.85 at precision 0.80, is retired.\n\n"
    "**Why TF-IDF over character 3-5-grams, still.** No method reaches the repeat target on any of the three "
    "notebooks, and no threshold could: the two ceiling columns are each method's best repeat recall at precision "
    "0.80 over every threshold chosen on that game itself, of the groups and of the raw pairs ranked before any "
    "clustering (diagnostics, not results), and none passes 0.64. The misses are paraphrases that share no word and "
    'need knowing the game ("The big dinosaur swallows bombs" / "King Dodongo: throw a bomb into his mouth"); the '
    'false alarms are lines about one thing saying different things ("On death you leave a Shade ..." / "If I die '
    'again before killing my shade ..."). The logistic regression over fourteen pair features (bench/'
    "similar_learned.py: character and stemmed-word TF-IDF, wordllama, the word alignment, rapidfuzz ratios, "
    "numbers, length, shared rare stems, neighbour ranks), trained on two games and measured on the third, does no "
    "better than its best feature alone. The word alignment (each content word matched to the other line's closest "
    "by wordllama's vectors, weighted by idf) is the best single method, ahead of TF-IDF on all three games in "
    "recall and precision, yet far from the target; it would bring wordllama (33 MB) into the default install and a "
    "per-pair cost not yet measured at 10,000 lines, so the engine keeps TF-IDF, which needs scikit-learn and no "
    "model file, keeps precision at the target on zelda-oot and labels most contradicting pairs conflict on all "
    "three. stardew-valley was written after every method and threshold had been chosen and was not changed after "
    "it was measured; its groups hold fewer near-copies than the other two games', which is why every method does "
    'worst there. There the rule misses two of seven contradicting pairs (a change of weekdays; "survive" '
    'against "die"): neither is in its lists, and adding them now would tune it to the held-out game. Every method '
    "is measured through the pairs the engine keeps (similarity at least 0.1, each "
    "line's 10 closest); the targets read engine.groups itself. Similarity only suggests: Dad decides every group."
)


def results_md(res: dict | None, rows: list) -> str:
    """The section of bench/RESULTS.md on similar lines (empty lines when it did not run)."""
    if not res:
        return (
            "\n## Similar lines\n\nNot measured in this run (bench/similar.py failed; run `python -m bench.similar`).\n"
        )
    from bench.report import ms, render_targets

    sp = res["speed"]
    out = ["", "## Similar lines (SQLite)", "", "### Targets", "", *render_targets(rows), "", "### Every method, "
           "side by side", "", *methods_table(res), "",
           f"Pairs: a group of k lines yields k(k-1)/2 pairs of its kind; recall is the share of labelled pairs "
           f"predicted, precision the share of predicted pairs labelled. Thresholds tuned on "
           f"{res['quality']['tuned_on']} only (`python -m bench.similar --tune`), the other games held out; the "
           f"learned method trained on two games, its thresholds chosen on them, reported on the third. "
           f"The ceiling columns: the groups' best repeat recall at precision ≥ 0.80 over every repeat threshold "
           f"chosen on that game itself, and the same of the alike (repeat or conflict) pairs ranked by similarity "
           f"alone; diagnostics of what no threshold could exceed, not results. "
           f"Speed on generated notebooks of 1,000 and 10,000 live lines (bench/similar.py many_lines): "
           f"{sp['groups_1000']} and {sp['groups_10000']} groups; the API's add {ms(sp['api_add'])} alone and "
           f"{ms(sp['api_add_nearest'])} followed by nearest_for.", "", WHY]  # fmt: skip
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.similar", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--tune", action="store_true", help="choose every method's thresholds on the tuning game")
    parser.add_argument("--out", help="write the figures as JSON here")
    args = parser.parse_args()
    if "DATABASE_URL" not in os.environ:  # alone: a scratch SQLite database of its own
        work = ROOT / "var" / "bench"
        work.mkdir(parents=True, exist_ok=True)
        path = work / "similar.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        os.environ["DATABASE_URL"] = f"sqlite:///{path}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.similar_settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from bench import report

    call_command("migrate", verbosity=0)
    res = {"quality": quality(args.tune), "speed": speed(args.quick)}
    print("\n".join(methods_table(res)))
    report.print_targets("similar lines", targets(res))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1))
    return 1 if any(t[4] == "FAIL" for t in targets(res)) else 0


if __name__ == "__main__":
    sys.exit(main())
