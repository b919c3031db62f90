"""The method, chosen by measurement (bench/RESULTS.md): TF-IDF over character 3-5-grams, cosine similarity, repeats
clustered by average link, a rule over alike pairs for a contradiction. No Django; the same lines, the same groups."""

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
from scipy import sparse
from scipy.cluster import hierarchy
from scipy.sparse.csgraph import connected_components
from scipy.spatial.distance import squareform
from sklearn.feature_extraction.text import TfidfVectorizer

Kind = Literal["repeat", "conflict"]
LineIn = tuple[int, str, str]  # (n, words, source)

# Chosen on bench/similar_data/hollow-knight.json only (the other games are held out); bench/similar.py shows all.
REPEAT_AT = 0.2  # mean similarity a repeat group keeps (average link): the most recall at precision 0.65-0.70
CONFLICT_AT = 0.30  # similarity from which two lines are alike enough for the contradiction rule
NEAREST_AT = 0.30  # a line is named as close to a new one from this similarity
FLOOR = 0.1  # pairs below this count 0 (average link reads the weak pairs inside a cluster too)
BLOCK = 2048  # rows of the similarity product computed at once
NEIGHBOURS = 10  # a line's alike pairs are its this many closest at most, so the graph stays sparse at 10,000 lines
COMMON = 500  # an n-gram in more lines than this is dropped (it likens everything; a small notebook keeps all)
ALSO_AT = 0.15  # a line outside a group is offered beside it from this similarity to one of its lines
CHECKED_CLUSTER = 60  # a cluster up to this size has each of its pairs read by the contradiction rule
MAX_CLUSTER = 1500  # a component larger than this is cut by its strongest edges before it is clustered


@dataclass(frozen=True)
class Group:
    lines: tuple[int, ...]
    kind: Kind
    score: float  # a repeat's mean similarity of its pairs; a conflict's similarity of its closest contradicting pair

    def as_dict(self) -> dict:
        return {"lines": list(self.lines), "kind": self.kind, "score": round(self.score, 2)}


WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}
NEGATIONS = frozenset(
    "not no never cannot can't don't doesn't didn't won't isn't aren't wasn't shouldn't mustn't without nothing none "
    "nor neither".split()
)
OPPOSITES = (
    ("fire", "ice"), ("left", "right"), ("before", "after"), ("up", "down"), ("faster", "slower"), ("day", "night"),
    ("first", "last"), ("more", "less"), ("always", "never"), ("open", "closed"), ("above", "below"),
    ("east", "west"), ("north", "south"), ("higher", "lower"), ("increase", "decrease"), ("early", "late"),
    ("child", "adult"), ("inside", "outside"), ("front", "back"), ("top", "bottom"), ("safe", "unsafe"),
    ("hot", "cold"), ("fast", "slow"), ("strong", "weak"), ("stronger", "weaker"), ("light", "dark"),
    ("win", "lose"), ("easier", "harder"), ("works", "fails"), ("add", "remove"),
)  # fmt: skip
POLES = frozenset(w for pair in OPPOSITES for w in pair)
STOP = frozenset(
    "a an the and or of to in on at for with by from is are be it its this that as then so if you your i my me he she "
    "they them his her their we our".split()
)


def words(text: str) -> list[str]:
    return WORD.findall(text.casefold())


def numbers(tokens: Iterable[str]) -> frozenset[str]:
    return frozenset(str(NUMBER_WORDS.get(t, t)) for t in tokens if t.isdigit() or t in NUMBER_WORDS)


@dataclass(frozen=True)
class Features:
    """What the rule reads of one line, made once (a notebook has far more alike pairs than lines)."""

    tokens: tuple[str, ...]
    vocab: frozenset[str]
    numbers: frozenset[str]
    negated: bool
    poles: frozenset[str]  # its words that have an opposite

    @classmethod
    def of(cls, text: str) -> "Features":
        tokens = tuple(words(text))
        vocab = frozenset(tokens)
        return cls(tokens, vocab, numbers(tokens), bool(vocab & NEGATIONS), vocab & POLES)


def contradiction(a: "str | Features", b: "str | Features") -> str | None:
    """Why two alike lines may contradict each other ("number", "negation", "key word"), or None."""
    fa = a if isinstance(a, Features) else Features.of(a)
    fb = b if isinstance(b, Features) else Features.of(b)
    if fa.numbers and fb.numbers and fa.numbers != fb.numbers:
        return "number"
    sa, sb = fa.vocab, fb.vocab
    only_a, only_b = fa.poles - sb, fb.poles - sa  # a word with an opposite that one line has and the other lacks
    if only_a and only_b and any((x in only_a and y in only_b) or (y in only_a and x in only_b) for x, y in OPPOSITES):
        return "key word"
    if fa.negated != fb.negated and _negated_word_shared(list(fa.tokens), list(fb.tokens)):
        return "negation"
    if len(sa - sb) == 1 and len(sb - sa) == 1 and _one_word_swapped(list(fa.tokens), list(fb.tokens)):
        return "key word"
    return None


def _negated_word_shared(ta: list[str], tb: list[str]) -> bool:
    """A word just after the negation is in the other line (a paraphrase's "not by waiting" adds a clause)."""
    neg, other = (ta, set(tb)) if set(ta) & NEGATIONS else (tb, set(ta))
    for i, t in enumerate(neg):
        if t in NEGATIONS:
            after = [w for w in neg[i + 1 : i + 4] if w not in STOP and w not in NEGATIONS]
            if any(w in other or any(o[:4] == w[:4] for o in other if len(o) >= 4) for w in after):
                return True
    return False


def _one_word_swapped(ta: list[str], tb: list[str]) -> bool:
    """One content word put in place of another in an otherwise identical line (soul for geo), not a form of it."""
    ops = difflib.SequenceMatcher(None, ta, tb, autojunk=False).get_opcodes()
    changed = [op for op in ops if op[0] != "equal"]
    if [(kind, i2 - i1, j2 - j1) for kind, i1, i2, j1, j2 in changed] != [("replace", 1, 1)]:
        return False
    x, y = ta[changed[0][1]], tb[changed[0][3]]
    return x not in STOP and y not in STOP and len(x) >= 3 and len(y) >= 3 and x[:3] != y[:3]


def normalized(text: str) -> str:
    return " ".join(words(text))


NOTHING = {"\x00\x00\x00": 0}  # a vocabulary no normalised text holds: the fit of lines without a word


def vectorizer(common: "int | float" = COMMON, vocabulary: dict[str, int] | None = None) -> TfidfVectorizer:
    return TfidfVectorizer(
        analyzer="char_wb",
        ngram_range=(3, 5),
        sublinear_tf=True,
        max_df=common,
        vocabulary=vocabulary,
        dtype=np.float32,
    )


def tfidf_matrix(texts: Sequence[str]) -> tuple[TfidfVectorizer, sparse.csr_matrix]:
    """Rows L2-normalised, so a dot product is the cosine. A fit that keeps no n-gram (scikit-learn's ValueError, once a
    500) keeps all when every n-gram is in more than COMMON lines, none when no line has a word ("!!!")."""
    normal = [normalized(t) for t in texts]
    vec = vectorizer()
    try:
        return vec, vec.fit_transform(normal).tocsr()
    except ValueError:
        vec = vectorizer(common=1.0) if any(normal) else vectorizer(vocabulary=NOTHING)
        return vec, vec.fit_transform(normal).tocsr()


def close_pairs(
    matrix: "sparse.csr_matrix | np.ndarray", floor: float = FLOOR, k: int = NEIGHBOURS
) -> dict[tuple[int, int], float]:
    """The pairs `top_pairs` keeps of the rows' cosines, by blocks of rows (never the whole square)."""
    found: dict[tuple[int, int], float] = {}
    for start in range(0, matrix.shape[0], BLOCK):
        block = sparse.coo_matrix(matrix[start : start + BLOCK] @ matrix.T)
        found.update(top_pairs(block.row + start, block.col, block.data, floor, k))
    return found


def top_pairs(
    rows: np.ndarray, cols: np.ndarray, values: np.ndarray, floor: float = FLOOR, k: int = NEIGHBOURS
) -> dict[tuple[int, int], float]:
    """Pairs (i < j) of similarity at least `floor` where j is among i's `k` closest or i among j's: a sparse graph."""
    keep = (values >= floor) & (cols != rows)
    rows, cols, values = rows[keep], cols[keep], values[keep]
    order = np.argsort(rows + (1.0 - values.astype(np.float64)) / 2, kind="stable")  # per row, closest first
    rows, cols, values = rows[order], cols[order], values[order]
    keep = np.arange(len(rows)) - np.searchsorted(rows, rows, side="left") < k
    rows, cols, values = rows[keep], cols[keep], values[keep]
    low, high = np.minimum(rows, cols), np.maximum(rows, cols)
    return dict(zip(zip(low.tolist(), high.tolist(), strict=True), values.tolist(), strict=True))


def tfidf_pairs(texts: Sequence[str]) -> dict[tuple[int, int], float]:
    return close_pairs(tfidf_matrix(texts)[1]) if len(texts) > 1 else {}


def _components(count: int, edges: Iterable[tuple[int, int]]) -> list[list[int]]:
    """The connected components of more than one node, each ascending, ordered by their smallest node."""
    pairs = np.array(list(edges), dtype=np.int64).reshape(-1, 2)
    graph = sparse.coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(count, count))
    found: dict[int, list[int]] = {}
    for x, label in enumerate(connected_components(graph, directed=False)[1].tolist()):
        found.setdefault(label, []).append(x)
    return [members for members in found.values() if len(members) > 1]


def _average_link(members: list[int], sim: dict[tuple[int, int], float], at: float) -> list[list[int]]:
    """Clusters of `members` whose mean pairwise similarity stays at least `at` (missing pairs count 0)."""
    members = sorted(members)
    if len(members) == 2:
        return [members] if sim.get((members[0], members[1]), 0.0) >= at else []
    place = {m: i for i, m in enumerate(members)}
    inside = [(place[x], place[y], s) for (x, y), s in sim.items() if x in place and y in place]
    distance = np.ones((len(members), len(members)), dtype=np.float64)
    if inside:
        xs, ys, ss = (np.array(v) for v in zip(*inside, strict=True))
        distance[xs, ys] = distance[ys, xs] = 1.0 - ss
    np.fill_diagonal(distance, 0.0)
    tree = hierarchy.linkage(squareform(np.clip(distance, 0.0, None), checks=False), method="average")
    labels = hierarchy.fcluster(tree, t=1.0 - at + 1e-9, criterion="distance")
    found: dict[int, list[int]] = {}
    for m, label in zip(members, labels, strict=True):
        found.setdefault(int(label), []).append(m)
    return sorted(c for c in found.values() if len(c) > 1)


def _pieces(count: int, edges: dict[tuple[int, int], float], at: float) -> list[tuple[list[int], dict]]:
    """Components of the edges at least `at`, each with every edge inside it (average link reads weaker ones too); one
    larger than MAX_CLUSTER is cut again by stronger edges, so the quadratic clustering stays small."""
    components = _components(count, [p for p, s in edges.items() if s >= at])
    label = {m: ci for ci, members in enumerate(components) for m in members}
    own: list[dict] = [{} for _ in components]
    for (x, y), s in edges.items():
        ci = label.get(x)
        if ci is not None and ci == label.get(y):
            own[ci][(x, y)] = s
    out = []
    for members, inside in zip(components, own, strict=True):
        if len(members) > MAX_CLUSTER and at < 1.0:
            out += _pieces(count, inside, at + (1.0 - at) / 4)
        else:
            out.append((members, inside))
    return out


def group(
    lines: Sequence[LineIn],
    sim: dict[tuple[int, int], float],
    *,
    repeat_at: float = REPEAT_AT,
    conflict_at: float = CONFLICT_AT,
) -> list[Group]:
    """Groups from the similarity of pairs of `lines` (by index): contradicting alike pairs make conflict groups, with
    the repeats either side; the other repeats are clustered."""
    features = [Features.of(text or "") for _, text, _ in lines]
    clash = {p: s for p, s in sim.items() if s >= conflict_at and contradiction(features[p[0]], features[p[1]])}
    agree = {p: s for p, s in sim.items() if p not in clash}
    clusters: list[list[int]] = []
    for members, own in _pieces(len(lines), agree, repeat_at):
        clusters += _average_link(members, own, repeat_at)
    # Two lines of one cluster that contradict make it a conflict, even where their own pair was too weak or not kept.
    for members in clusters:
        for p in combinations(sorted(members), 2) if len(members) <= CHECKED_CLUSTER else ():
            if p not in clash and contradiction(features[p[0]], features[p[1]]):
                clash[p] = sim.get(p, repeat_at)
    cluster_of = {m: ci for ci, c in enumerate(clusters) for m in c}
    # A conflict takes in the repeat clusters of both its sides; conflicts sharing a line become one group.
    count = len(lines)
    edges = list(clash)
    edges += [(x, count + cluster_of[x]) for pair in clash for x in pair if x in cluster_of]
    joined = _components(count + len(clusters), edges)
    out: list[Group] = []
    used: set[int] = set()
    for members in joined:
        idx = {m for x in members for m in ([x] if x < count else clusters[x - count])}
        score = max(s for p, s in clash.items() if p[0] in idx)
        out.append(Group(tuple(sorted(lines[i][0] for i in idx)), "conflict", score))
        used.update(x - count for x in members if x >= count)
    for ci, members in enumerate(clusters):
        if ci in used:
            continue
        pairs = list(combinations(members, 2))
        score = sum(agree.get(p, 0.0) for p in pairs) / len(pairs)
        out.append(Group(tuple(sorted(lines[i][0] for i in members)), "repeat", score))
    return sorted(out, key=lambda g: (-round(g.score, 6), g.lines))


def groups(lines: Sequence[LineIn]) -> list[Group]:
    """The groups of live lines that probably say one thing or contradict each other, best first."""
    lines = sorted(lines)
    return group(lines, tfidf_pairs([text or "" for _, text, _ in lines]))


def line_pairs(lines: Sequence[LineIn]) -> dict[tuple[int, int], float]:
    """The alike pairs of `lines` by line number (n < m): what the groups are made from."""
    lines = sorted(lines)
    return {(lines[i][0], lines[j][0]): v for (i, j), v in tfidf_pairs([text or "" for _, text, _ in lines]).items()}


def also_close(pairs: dict[tuple[int, int], float], members: Sequence[int]) -> list[tuple[int, float]]:
    """The (at most 3) lines outside a group most like one of its lines, closest first: the method misses paraphrases
    that share few words (bench/RESULTS.md), and a tick finishes the group."""
    inside = set(members)
    best: dict[int, float] = {}
    for (a, b), score in pairs.items():
        if score < ALSO_AT or (a in inside) == (b in inside):
            continue
        other = b if a in inside else a
        best[other] = max(best.get(other, 0.0), score)
    return sorted(best.items(), key=lambda x: (-x[1], x[0]))[:3]


def nearest(lines: Sequence[LineIn], text: str, k: int = 3, *, at: float = NEAREST_AT) -> list[tuple[int, float]]:
    """The (at most k) live lines most like `text`, most alike first; empty when none reaches `at`."""
    lines = sorted(lines)
    if not lines:
        return []
    vec, matrix = tfidf_matrix([t or "" for _, t, _ in lines])
    scores = (matrix @ vec.transform([normalized(text)]).T).toarray().ravel()
    ranked = sorted((-float(scores[i]), lines[i][0]) for i in np.nonzero(scores >= at)[0])[:k]
    return [(n, round(-s, 4)) for s, n in ranked]


class Weigher:
    """A fitted vectorizer's weights for one more line without scikit-learn's per-call overhead (an add pays for it);
    n-grams the fit never saw count 0."""

    def __init__(self, fitted: TfidfVectorizer) -> None:
        self.analyze = fitted.build_analyzer()
        self.vocabulary = fitted.vocabulary_
        self.idf = fitted.idf_.astype(np.float32)
        self.size = len(self.idf)

    def sparse(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """(column indices, weights) of `text`'s row."""
        counts: dict[int, int] = {}
        vocabulary = self.vocabulary
        for gram in self.analyze(normalized(text)):
            j = vocabulary.get(gram)
            if j is not None:
                counts[j] = counts.get(j, 0) + 1
        if not counts:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        columns = np.fromiter(counts, dtype=np.int64, count=len(counts))
        weights = (1.0 + np.log(np.fromiter(counts.values(), dtype=np.float32, count=len(counts)))) * self.idf[columns]
        return columns, weights / np.linalg.norm(weights)

    def dense(self, text: str) -> np.ndarray:
        columns, weights = self.sparse(text)
        out = np.zeros(self.size, dtype=np.float32)
        out[columns] = weights
        return out
