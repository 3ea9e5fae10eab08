"""IPSO on a set of runs — Moffat & Mackenzie, MM23 §3 "Separability In Practice" to the end of §3.

Everything here is vectorised over all S(S−1)/2 system pairs × T topics of a
:class:`~irscales.data.collection.Collection` (MM23: 110 Robust 2004 runs, 5,995 pairs, 249 topics).

Pairs and orientation
    Pairs are ``(A, B) = (i, j)``, ``i < j``, in :func:`irscales.stats.significance.pairs` order. The IPSO
    relation of a pair on a topic is Algorithm 1 (:mod:`irscales.ipso`) with S1 = A's SERP and
    S2 = B's SERP: ``ni`` means A ⪰ B (A non-inferior), ``ns`` A ⪯ B. Relevance is the collection's
    lenient binary relevance (MM23 §3 "Experimental Setup": grade ≥ 1 relevant, unjudged not
    relevant) unless ``gains="graded"`` (grades as integer gains, MM23 §4).

Depths
    :func:`pair_relations` keeps, per pair and topic, the first rank at which A is strictly ahead
    and the first at which it is behind in cumulative gain (integers), so the relation at *every*
    depth k ≤ N follows without recomputation (:meth:`PairRelations.at`). Categories are decided
    in integer arithmetic; there are no floating-point ties.

Analyses
    * :func:`table3` — MM23 Table 3: fractions of all (pair, topic) SERP pairs that are equal,
      separable (ni + ns) and non-separable at k = 5, 10, 15, 20, 50, 100 (exact counts).
    * :func:`pair_topics` / :func:`plot_pair_topics` — MM23 Figs 5–6: one system pair over topics,
      rows in the paper's five groups, with per-metric score differences M(A) − M(B) whose signs
      are decided exactly.
    * :func:`ipso_sign_tests` — the IPSO sign test (MM23 §3 "Statistical Testing"): over topics,
      |ni| against |ns| (equal and non-separable topics ignored), exact two-tailed binomial test,
      significant iff p < α (decided on exact rationals).
    * :func:`agreement` / :func:`fig7` — MM23 Fig. 7: per pair, metric test (sign, Wilcoxon
      signed-rank or paired t from :mod:`irscales.stats.significance`) against the IPSO sign test, in
      the categories "Both: Yes", "Both: No", "Metric: Yes", "Metric: No".
    * :func:`triangle` / :func:`plot_triangle` — MM23 Fig. 8: the same categories per pair,
      systems ordered by mean Prec@10.

Conventions the text leaves open (our choices, documented where the code makes them)
    * The six metrics of Figs 5–7 at depth k: RR@k, Prec@k (= P(k)), RBP(0.5)@k, RBP(0.8)@k,
      AP@k (trec_eval ``map_cut``: normalised by the topic's recall base) and NDCG@k with the
      1/log2(i+1) discount and the judged ideal run (:func:`metrics_at`).
    * "p < α" (MM23) for every decision. :mod:`irscales.stats.significance` decides p ≤ α exactly; its
      sign and exact signed-rank p-values are dyadic rationals, never equal to α = 0.05 or 0.01,
      so the two rules agree there; a p-value equal to α as a float is treated as not significant.
    * Fig. 5/6 pair: "the best Robust run and the 25th percentile run according to Prec@10",
      "1/4 of the way up the triangle's left edge": the best system by mean Prec@10 and the system
      at 0-based position round((S − 1)/4) of that order (:func:`fig5_pair`).
    * Fig. 7's four depths are not given in the text (the figure is an image): default
      :data:`FIG7_DEPTHS` = (5, 10, 20, 50).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from irscales import ipso
from irscales.ipso import LABELS, Relation
from irscales.stats.significance import binomial_two_sided_table

if TYPE_CHECKING:  # annotations only; matplotlib is imported lazily by the plots
    import matplotlib.axes
    import matplotlib.figure

    from irscales.data.collection import Collection

__all__ = [
    "PairRelations", "pair_relations", "pair_relations_reference", "table3", "TABLE3_DEPTHS",
    "FIG7_DEPTHS", "metrics_at", "METRIC_NAMES", "sign_test_pvalues", "IPSOSignTests",
    "ipso_sign_tests", "AGREEMENT", "AGREEMENT_COLORS", "agreement", "metric_tests", "fig7",
    "plot_fig7", "fig5_pair", "pair_topics", "GROUPS", "plot_pair_topics", "triangle",
    "plot_triangle", "relevant_mix", "reproduce_part_b", "split_simulated", "reproduce_from_printed",
    "sign_test_one_sided", "printed_product",
]

TABLE3_DEPTHS = (5, 10, 15, 20, 50, 100)
FIG7_DEPTHS = (5, 10, 20, 50)
METRIC_NAMES = ("RR", "Prec@k", "RBP(0.5)", "RBP(0.8)", "AP", "NDCG")
TESTS = ("sign", "wilcoxon", "t")
TEST_LABELS = {"sign": "Sign test", "wilcoxon": "Wilcoxon signed-rank", "t": "Student t"}

#: MM23 Fig. 7 categories, in stacking order (bottom first).
AGREEMENT = ("Both: Yes", "Both: No", "Metric: Yes", "Metric: No")
#: dark green, light green, mustard, grey (MM23 Figs 7–8)
AGREEMENT_COLORS = ("#1b7837", "#a6dba0", "#d4a017", "#999999")

#: MM23 Fig. 5 groups, top to bottom.
GROUPS = ("** via ns", "ns", "=", "ni", "** via ni")


# --------------------------------------------------------------------------- relations


@dataclass(frozen=True)
class PairRelations:
    """IPSO relations of every system pair on every topic, at every depth ≤ ``depth``.

    ``first_pos[p, t]`` / ``first_neg[p, t]``: first rank (1-based) at which system
    ``first[p]`` (A) is strictly ahead / behind ``second[p]`` (B) in cumulative gain on topic t;
    0 if never within ``depth``.
    """

    first_pos: np.ndarray
    first_neg: np.ndarray
    first: np.ndarray
    second: np.ndarray
    depth: int
    systems: tuple[str, ...]
    topics: tuple[str, ...]

    @property
    def n_pairs(self) -> int:
        return int(self.first.shape[0])

    def _check(self, k: int) -> int:
        if not isinstance(k, (int, np.integer)) or not 1 <= k <= self.depth:
            raise ValueError(f"depth k must be an integer in 1..{self.depth} (the depth of these "
                             f"relations), got {k!r}")
        return int(k)

    def at(self, k: int) -> np.ndarray:
        """Relation codes (:class:`~irscales.ipso.Relation`) at depth k, shape (pairs, topics)."""
        k = self._check(k)
        pos = (self.first_pos > 0) & (self.first_pos <= k)
        neg = (self.first_neg > 0) & (self.first_neg <= k)
        return pos.astype(np.int8) + 2 * neg.astype(np.int8)

    def counts(self, k: int) -> dict[str, int]:
        """Number of (pair, topic) SERP pairs per category at depth k (``=``, ``ni``, ``ns``, ``**``)."""
        c = np.bincount(self.at(k).reshape(-1), minlength=4)
        return {r.label: int(c[r]) for r in Relation}

    def sign_counts(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Per pair: (|ni|, |ns|) over topics at depth k."""
        a = self.at(k)
        return (a == Relation.NI).sum(1), (a == Relation.NS).sum(1)

    def pair_index(self, a: int, b: int) -> tuple[int, bool]:
        """Row of the pair of systems a, b (positions) and whether it is stored as (b, a)."""
        if a == b:
            raise ValueError("a system pair needs two different systems")
        lo, hi = min(a, b), max(a, b)
        S = len(self.systems)
        row = lo * S - lo * (lo + 1) // 2 + (hi - lo - 1)  # position in triu_indices order
        return row, a > b


def _validate_rel(rel) -> np.ndarray:
    a = np.asarray(rel)
    if a.ndim != 3:
        raise ValueError(f"relevance must have shape (systems, topics, ranks), got shape {a.shape}")
    if a.shape[0] < 2:
        raise ValueError(f"need at least 2 systems to form pairs, got {a.shape[0]}")
    if a.shape[1] < 1 or a.shape[2] < 1:
        raise ValueError(f"need at least one topic and one rank, got shape {a.shape}")
    if a.dtype.kind not in "biu":
        raise TypeError(f"relevance must be binary labels or integer grades, got dtype {a.dtype} "
                        "(real-valued gains: use irscales.ipso.compare on each pair)")
    if a.dtype.kind == "i" and a.size and a.min() < 0:
        idx = tuple(int(x) for x in np.argwhere(a < 0)[0])
        raise ValueError(f"relevance must be >= 0; found {int(a[idx])} at (system, topic, rank) = {idx}")
    return a


def pair_relations(rel, systems: Sequence[str] | None = None,
                   topics: Sequence[str] | None = None) -> PairRelations:
    """Algorithm 1 of MM23 for all system pairs × topics of ``rel`` (systems, topics, ranks).

    Works on per-system prefix sums C_s[t, i] = Σ_{r ≤ i} rel_s[t, r]: for a pair (A, B),
    cumul_i = C_A[t, i] − C_B[t, i] (MM23 Algorithm 1), so the cumulative sums are computed once
    per system, not once per pair. One system A at a time against all B > A bounds the memory
    to (S × T × N) integers.
    """
    a = _validate_rel(rel)
    S, T, N = a.shape
    systems = tuple(str(x) for x in systems) if systems is not None else tuple(map(str, range(S)))
    topics = tuple(str(x) for x in topics) if topics is not None else tuple(map(str, range(T)))
    if len(systems) != S or len(topics) != T:
        raise ValueError(f"{len(systems)} system names and {len(topics)} topic names for relevance "
                         f"of shape {a.shape}")
    bound = int(a.max(initial=0)) * N
    dt = np.int16 if bound < 2**15 - 1 else (np.int32 if bound < 2**31 - 1 else np.int64)
    C = np.cumsum(a, axis=-1, dtype=dt)
    first, second = np.triu_indices(S, 1)
    rank_dt = np.int16 if N < 2**15 else np.int32
    fp = np.zeros((first.size, T), dtype=rank_dt)
    fn = np.zeros((first.size, T), dtype=rank_dt)
    off = 0
    for s in range(S - 1):
        d = C[s][None] - C[s + 1:]  # (S − s − 1, T, N): cumul of (s, later systems)
        pos, neg = d > 0, d < 0
        n = S - s - 1
        fp[off:off + n] = np.where(pos.any(-1), pos.argmax(-1) + 1, 0)
        fn[off:off + n] = np.where(neg.any(-1), neg.argmax(-1) + 1, 0)
        off += n
    return PairRelations(fp, fn, first, second, N, systems, topics)


def pair_relations_reference(rel, k: int) -> np.ndarray:
    """Relation codes (pairs, topics) at depth k by one :func:`ipso.compare_reference` call per
    pair and topic (a plain loop, for cross-checks on small data)."""
    a = _validate_rel(rel)
    S, T, _ = a.shape
    out = []
    for i, j in zip(*np.triu_indices(S, 1)):
        out.append([int(ipso.compare_reference(a[i, t].tolist(), a[j, t].tolist(), k)) for t in range(T)])
    return np.array(out, dtype=np.int8).reshape(-1, T)


def _relations_of(col: "Collection", gains: str = "binary") -> PairRelations:
    if gains not in ("binary", "graded"):
        raise ValueError(f"gains must be 'binary' or 'graded', got {gains!r}")
    rel = col.binary() if gains == "binary" else col.rel
    return pair_relations(rel, col.systems, col.topics)


# --------------------------------------------------------------------------- Table 3


def table3(rels: PairRelations, depths: Sequence[int] = TABLE3_DEPTHS) -> pd.DataFrame:
    """MM23 Table 3: fractions (%) of all (pair, topic) SERP pairs that are equal, separable
    (ni + ns) and non-separable at each depth, plus the exact counts behind them.

    Depths deeper than the relations' depth are refused (a run cut at N says nothing below N).
    """
    rows = []
    if not len(depths):
        raise ValueError("table3 needs at least one depth")
    for k in depths:
        c = rels.counts(k)
        tot = sum(c.values())
        rows.append({"k": int(k), "equal %": 100 * c["="] / tot, "separable %": 100 * (c["ni"] + c["ns"]) / tot,
                     "non-sep. %": 100 * c["**"] / tot, "n =": c["="], "n ni": c["ni"], "n ns": c["ns"],
                     "n **": c["**"], "SERP pairs": tot})
    return pd.DataFrame(rows).set_index("k")


def relevant_mix(rel, depths: Sequence[int] = TABLE3_DEPTHS) -> pd.DataFrame:
    """Percentage of relevant (1) and non-relevant (0) documents in the top k of all runs
    (MM23 §3: "at k = 5 there are 50.5% non-relevant and 49.5% relevant")."""
    a = np.asarray(rel) > 0
    rows = []
    for k in depths:
        if k > a.shape[-1]:
            raise ValueError(f"depth {k} exceeds the runs' depth {a.shape[-1]}")
        n1 = int(a[..., :k].sum())
        tot = a[..., :k].size
        rows.append({"k": int(k), "relevant %": 100 * n1 / tot, "non-relevant %": 100 * (tot - n1) / tot})
    return pd.DataFrame(rows).set_index("k")


# --------------------------------------------------------------------------- IPSO sign test


@lru_cache(maxsize=64)
def _binom_tables(n_max: int, alpha: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """p[n, m] as floats and sig[n, m] = (p < α) decided exactly (MM23: "p < α"), 0 ≤ m ≤ n ≤ n_max."""
    exact = binomial_two_sided_table(n_max)
    return np.vectorize(float, otypes=[float])(exact), exact < alpha


def _alpha(alpha: float) -> Fraction:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    return Fraction(repr(float(alpha)))


def sign_test_pvalues(x, y, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
    r"""Two-tailed exact sign test of counts ``x`` against ``y`` (arrays of non-negative ints):

    .. math:: p = \min\Bigl(1,\ 2 \cdot 2^{-n} \sum_{m \le \min(x, y)} \binom{n}{m}\Bigr),\quad n = x + y

    (p = 1 when n = 0). Returns (p as floats, p < α decided on exact rationals).
    """
    x, y = np.asarray(x, dtype=np.int64), np.asarray(y, dtype=np.int64)
    if (x < 0).any() or (y < 0).any():
        raise ValueError("sign-test counts must be >= 0")
    n = x + y
    p, sig = _binom_tables(int(n.max(initial=0)), _alpha(alpha))
    m = np.minimum(x, y)
    return p[n, m], sig[n, m]


@dataclass(frozen=True)
class IPSOSignTests:
    """IPSO sign test of every pair at one depth: counts over topics, p-value, decision."""

    equal: np.ndarray
    ni: np.ndarray
    ns: np.ndarray
    nonsep: np.ndarray
    pvalue: np.ndarray
    significant: np.ndarray
    depth: int
    alpha: float


def ipso_sign_tests(rels: PairRelations, k: int, alpha: float = 0.05,
                    topics: np.ndarray | None = None) -> IPSOSignTests:
    """MM23 §3: per pair, H0 |ni| = |ns| over topics (equal and non-separable topics are
    ignored), exact two-tailed sign test; ``topics`` (indices or mask) restricts the topic set."""
    a = rels.at(k)
    if topics is not None:
        a = a[:, np.asarray(topics)]
    c = [(a == r).sum(1) for r in Relation]
    p, sig = sign_test_pvalues(c[Relation.NI], c[Relation.NS], alpha)
    return IPSOSignTests(c[0], c[1], c[2], c[3], p, sig, int(k), float(alpha))


# --------------------------------------------------------------------------- metric tests


def metrics_at(k: int) -> dict[str, object]:
    """The six metrics of MM23 Figs 5–7 at depth k (see the module docstring)."""
    from irscales.measures import AP, NDCG, RBP, RR, P

    return {"RR": RR(), f"Prec@{k}": P(k=k), "RBP(0.5)": RBP(p=0.5), "RBP(0.8)": RBP(p=0.8),
            "AP": AP(), "NDCG": NDCG(discount="log2p1")}


def _run_test(scores_ts: np.ndarray, test: str, alpha: float):
    from irscales.stats import significance as S

    fn = {"sign": S.sign_test, "wilcoxon": S.signed_rank_test, "t": S.paired_t_test}.get(test)
    if fn is None:
        raise ValueError(f"unknown test {test!r}; choose from {', '.join(TESTS)}")
    res = fn(scores_ts, alpha=alpha)
    # MM23 uses p < α; the library's exact decisions are p ≤ α (see the module docstring)
    return res.pvalue, res.significant & ~(res.pvalue == alpha)


def metric_tests(scores: np.ndarray, tests: Sequence[str] = TESTS, alpha: float = 0.05) -> dict[str, tuple]:
    """Paired two-tailed tests for every system pair: ``scores`` is (topics, systems);
    returns {test: (p-values, significant)} in pair order."""
    sc = np.asarray(scores)
    if sc.ndim != 2:
        raise ValueError(f"scores must be (topics, systems), got shape {sc.shape}")
    return {t: _run_test(sc, t, alpha) for t in tests}


def agreement(metric_sig, ipso_sig) -> np.ndarray:
    """MM23 Fig. 7 category per pair (index into :data:`AGREEMENT`): 0 both significant,
    1 neither, 2 metric only ("Metric: Yes"), 3 IPSO only ("Metric: No")."""
    m, i = np.asarray(metric_sig, bool), np.asarray(ipso_sig, bool)
    if m.shape != i.shape:
        raise ValueError(f"metric and IPSO decisions have shapes {m.shape} and {i.shape}")
    return np.where(m & i, 0, np.where(~m & ~i, 1, np.where(m, 2, 3))).astype(np.int8)


def fig7(col: "Collection", depths: Sequence[int] = FIG7_DEPTHS, tests: Sequence[str] = TESTS, alpha: float = 0.05,
         rels: PairRelations | None = None, metrics: Mapping[str, object] | None = None,
         exact: bool = False) -> pd.DataFrame:
    """MM23 Fig. 7: for each metric × depth × test, the number and fraction of system pairs in
    each agreement category. Long frame: metric, depth, test, category, pairs, fraction.

    Scores are floats by default, as :mod:`irscales.stats.significance` takes them (score ties = equal
    floats). ``exact=True`` passes exact Fractions for the rational metrics, so ties are decided
    exactly (about 100× slower on 5,995 pairs; the tests check both give the same decisions).
    """
    rels = rels if rels is not None else _relations_of(col)
    rows = []
    for k in depths:
        ip = ipso_sign_tests(rels, k, alpha)
        ms = metrics if metrics is not None else metrics_at(k)
        for name, m in ms.items():
            label = name.replace(f"@{k}", "@k")
            res = metric_tests(col.evaluate(m, k, exact=exact and getattr(m, "rational", False)), tests, alpha)
            for t in tests:
                cat = agreement(res[t][1], ip.significant)
                cnt = np.bincount(cat, minlength=4)
                for c, lab in enumerate(AGREEMENT):
                    rows.append({"metric": label, "depth": int(k), "test": t, "category": lab,
                                 "pairs": int(cnt[c]), "fraction": cnt[c] / cat.size})
    return pd.DataFrame(rows)


def plot_fig7(frame: pd.DataFrame, title: str = "") -> "matplotlib.figure.Figure":
    """Stacked bars (one per depth) of the agreement categories; panes = tests × metrics."""
    import matplotlib.pyplot as plt

    metrics = list(dict.fromkeys(frame["metric"]))
    tests = list(dict.fromkeys(frame["test"]))
    depths = sorted(set(frame["depth"]))
    fig, axes = plt.subplots(len(tests), len(metrics), figsize=(2.1 * len(metrics), 2.3 * len(tests)),
                             sharey=True, squeeze=False)
    for r, t in enumerate(tests):
        for c, m in enumerate(metrics):
            ax = axes[r, c]
            sub = frame[(frame["test"] == t) & (frame["metric"] == m)]
            bottom = np.zeros(len(depths))
            for cat, color in zip(AGREEMENT, AGREEMENT_COLORS):
                v = np.array([sub[(sub["depth"] == d) & (sub["category"] == cat)]["fraction"].sum()
                              for d in depths])
                ax.bar(range(len(depths)), v, bottom=bottom, color=color, label=cat, width=0.8)
                bottom += v
            ax.set_xticks(range(len(depths)), [f"k={d}" for d in depths], fontsize=7)
            ax.set_ylim(0, 1)
            if r == 0:
                ax.set_title(m, fontsize=9)
            if c == 0:
                ax.set_ylabel(TEST_LABELS.get(t, t), fontsize=9)
    axes[0, -1].legend(fontsize=6, loc="lower right")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


# --------------------------------------------------------------------------- Figs 5-6


def _order_by_mean(col: "Collection", measure, depth: int, topics=None) -> np.ndarray:
    """System positions by decreasing mean score (exact Fractions for rational measures, so ties
    are true ties), ties kept in collection order."""
    sub = col if topics is None else col.subset(topics=topics)
    if getattr(measure, "rational", False):
        vals = sub.evaluate(measure, depth, exact=True)
        means = [sum(column, Fraction(0)) for column in vals.T]
        keys = sorted(range(len(means)), key=lambda s: (-means[s], s))
        return np.array(keys, dtype=np.int64)
    means = sub.evaluate(measure, depth).mean(0)
    return np.argsort(-means, kind="stable")


def fig5_pair(col: "Collection", depth: int = 10, quantile: float = 0.25) -> tuple[int, int]:
    """MM23 Figs 5–6 pair (system positions): the best system by mean Prec@depth and the one at
    0-based position round(quantile · (S − 1)) of that order (see the module docstring)."""
    from irscales.measures import P

    order = _order_by_mean(col, P(k=depth), depth)
    return int(order[0]), int(order[int(round(quantile * (len(order) - 1)))])


def _exact_values(col, measure, depth: int, systems: Sequence[int]):
    """Per-topic scores of two systems in exactly comparable form, one row per system."""
    sub = col.subset(systems=list(systems))
    if getattr(measure, "rational", False):
        return sub.evaluate(measure, depth, exact=True).T
    return sub.evaluate(measure, depth).T


def _exact_diff_sign(x1, x2, same_serp: bool, k: int) -> int:
    if same_serp:  # identical SERPs (and recall base) score identically under any metric
        return 0
    return ipso.exact_sign(x1, x2, k)


def pair_topics(col: "Collection", a: int, b: int, depth: int = 10, topics=None,
                metrics: Mapping[str, object] | None = None) -> pd.DataFrame:
    """MM23 Figs 5–6: systems ``a`` (A) and ``b`` (B) (positions) on each topic at ``depth``.

    Columns: topic, SERPs of A and B (bit strings), relation at every depth 1..k (``rel@i``),
    final relation, group (:data:`GROUPS`), the number of ``**`` cells, the length of the leading
    ``=`` zone, and for each metric the difference M(A) − M(B) (float) and its sign (decided
    exactly: Fractions for rational metrics, float NDCG only where far from rounding error).

    Row order (MM23 §3, Fig. 5): the five groups top to bottom; within a group by the number of
    ``**`` cells, then by the length of the leading ``=`` zone. Directions are our reading of
    "wrapping around": the first group has most ``**`` at the top, the last at the bottom; ``ns``
    rows end next to the ``=`` group with their longest ``=`` zones, ``ni`` rows start with them.
    """
    sub = col if topics is None else col.subset(topics=topics)
    bits = sub.binary(depth)
    A, B = bits[a], bits[b]
    r = ipso.compare(A, B)
    ms = metrics if metrics is not None else metrics_at(depth)
    codes = np.stack([r.at(i) for i in range(1, depth + 1)], axis=1)  # (T, k)
    rel = r.relation
    fp, fn = r.first_pos, r.first_neg
    group = np.where(rel == Relation.NS, 1, np.where(rel == Relation.EQUAL, 2, np.where(rel == Relation.NI, 3,
                     np.where(fn < fp, 0, 4))))
    n_nonsep = (codes == Relation.NONSEP).sum(1)
    lead_eq = (codes == Relation.EQUAL).sum(1)
    df = pd.DataFrame({"topic": list(sub.topics),
                       "serp_A": ["".join(map(str, s)) for s in A.tolist()],
                       "serp_B": ["".join(map(str, s)) for s in B.tolist()]})
    for i in range(depth):
        df[f"rel@{i + 1}"] = LABELS[codes[:, i]]
    df["relation"] = LABELS[rel]
    df["group"] = np.array(GROUPS, dtype=object)[group]
    df["n_**"] = n_nonsep
    df["leading_="] = lead_eq
    same = (A == B).all(1)
    for name, m in ms.items():
        label = name.replace(f"@{depth}", "@k")
        v = _exact_values(sub, m, depth, [a, b])
        df[f"d {label}"] = np.asarray(v[0], float) - np.asarray(v[1], float)
        df[f"sign {label}"] = [_exact_diff_sign(v[0][t], v[1][t], bool(same[t]), depth) for t in range(len(same))]
    # sort keys: group, then ** count, then leading = zone (directions as in the docstring)
    k1 = np.where(group == 0, -n_nonsep, np.where(group == 4, n_nonsep, 0))
    k2 = np.where(group == 1, lead_eq, np.where(group == 3, -lead_eq, np.where(group == 4, -lead_eq, lead_eq)))
    order = np.lexsort((k2, k1, group))
    return df.iloc[order].reset_index(drop=True)


def plot_pair_topics(frame: pd.DataFrame, title: str = "", pieces: int = 1) -> "matplotlib.figure.Figure":
    """Draw :func:`pair_topics` as MM23 Figs 5–6: per row the IPSO relation at each depth
    (colours of MM23 Figs 2 and 4) and the six metric differences (dark blue equal, yellow
    A higher, light blue B higher); ``pieces`` > 1 splits the rows side by side (Fig. 6)."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    rel_cols = [c for c in frame.columns if c.startswith("rel@")]
    sign_cols = [c for c in frame.columns if c.startswith("sign ")]
    code = {r.label: int(r) for r in Relation}
    R = np.vectorize(code.__getitem__)(frame[rel_cols].to_numpy()) if len(frame) else np.zeros((0, len(rel_cols)))
    # metric cells: 0 equal (dark blue), 1 A higher (yellow), 2 B higher (light blue)
    Mv = frame[sign_cols].to_numpy().astype(int)
    Mc = np.where(Mv == 0, 0, np.where(Mv > 0, 1, 2))
    n = len(frame)
    per = math.ceil(n / pieces) if n else 1
    annotate = per <= 60
    # annotated rows need room for their numbers; unannotated ones only for their colours, so that
    # Fig. 6's 249 topics stay one readable screen high
    fig, axes = plt.subplots(1, pieces, figsize=(7.5 * pieces if annotate else 5.0 * pieces,
                                                 (0.22 if annotate else 0.04) * per + 1.6),
                             squeeze=False, layout="constrained")
    cm = ipso._cmap()
    cm3 = ListedColormap([ipso._COLORS[Relation.EQUAL], ipso._COLORS[Relation.NI], ipso._COLORS[Relation.NS]])
    gap = 1
    for p, ax in enumerate(axes[0]):
        lo, hi = p * per, min(n, (p + 1) * per)
        rows = np.arange(lo, hi)
        k = R.shape[1]
        ax.imshow(R[rows], cmap=cm, vmin=-0.5, vmax=3.5, aspect="auto", interpolation="nearest",
                  extent=(-0.5, k - 0.5, len(rows) - 0.5, -0.5))
        x0 = k + gap
        ax.imshow(Mc[rows], cmap=cm3, vmin=-0.5, vmax=2.5, aspect="auto", interpolation="nearest",
                  extent=(x0 - 0.5, x0 + len(sign_cols) * 1.6 - 0.5, len(rows) - 0.5, -0.5))
        if annotate:
            dcols = [c.replace("sign ", "d ") for c in sign_cols]
            for rr, t in enumerate(rows):
                for j, dc in enumerate(dcols):
                    val = frame[dc].iloc[t]
                    ax.text(x0 + (j + 0.5) * 1.6 - 0.5, rr, f"{val:+.2f}" if Mv[t, j] else "0",
                            ha="center", va="center", fontsize=5.5,
                            color="white" if Mc[t, j] == 0 else "black")
            ax.set_yticks(range(len(rows)), [f"{frame['topic'].iloc[t]} {frame['serp_A'].iloc[t]} "
                                             f"{frame['serp_B'].iloc[t]}" for t in rows],
                          fontfamily="monospace", fontsize=6)
        else:
            ax.set_yticks([])
            ax.set_ylabel(f"topics, rows {lo + 1}–{hi} of {n}", fontsize=8)
        ax.set_xlim(-0.5, x0 + len(sign_cols) * 1.6 - 0.5)
        ax.set_xticks(list(range(k)) + [x0 + (j + 0.5) * 1.6 - 0.5 for j in range(len(sign_cols))],
                      [str(i + 1) for i in range(k)] + [c.replace("sign ", "") for c in sign_cols],
                      fontsize=7, rotation=90)
        ax.xaxis.tick_top()
    if title:
        fig.suptitle(title, fontsize=10)
    return fig


# --------------------------------------------------------------------------- Fig. 8


def triangle(col: "Collection", depth: int = 10, test: str = "t", alpha: float = 0.05, topics=None,
             measure=None, rels: PairRelations | None = None) -> pd.DataFrame:
    """MM23 Fig. 8: one row per system pair, systems ranked by mean ``measure`` (default
    Prec@depth) over ``topics`` (1 = best); the metric test on the paired scores and the IPSO
    sign test over the same topics, and the agreement category.

    Columns: system_a, system_b (rank_a < rank_b), rank_a, rank_b, metric_p, metric_sig,
    ni, ns, ipso_p, ipso_sig, category.
    """
    from irscales.measures import P

    m = measure if measure is not None else P(k=depth)
    sub = col if topics is None else col.subset(topics=topics)
    if rels is None:
        rels = _relations_of(col)
    if rels.systems != col.systems or rels.topics != col.topics:
        raise ValueError("the relations given were computed on a different collection")
    tidx = None if topics is None else np.array([col.topics.index(t) for t in sub.topics])
    ip = ipso_sign_tests(rels, depth, alpha, topics=tidx)
    p, sig = metric_tests(sub.evaluate(m, depth), [test], alpha)[test]
    order = _order_by_mean(sub, m, depth)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(1, len(order) + 1)
    ra, rb_ = rank[rels.first], rank[rels.second]
    swap = ra > rb_
    names = np.array(col.systems, dtype=object)
    first = np.where(swap, rels.second, rels.first)
    second = np.where(swap, rels.first, rels.second)
    return pd.DataFrame({
        "system_a": names[first], "system_b": names[second],
        "rank_a": np.minimum(ra, rb_), "rank_b": np.maximum(ra, rb_),
        "metric_p": p, "metric_sig": sig, "ni": np.where(swap, ip.ns, ip.ni), "ns": np.where(swap, ip.ni, ip.ns),
        "ipso_p": ip.pvalue, "ipso_sig": ip.significant,
        "category": np.array(AGREEMENT, dtype=object)[agreement(sig, ip.significant)],
    })


def plot_triangle(frame: pd.DataFrame, ax=None, title: str = "") -> "matplotlib.axes.Axes":
    """One dot per pair at (rank_a, rank_b), coloured by agreement category (MM23 Fig. 8)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(5, 5))
    n = int(frame[["rank_a", "rank_b"]].to_numpy().max(initial=2))
    size = min(60.0, (250.0 / n) ** 2)  # squares that nearly fill their cell at any number of systems
    for cat, color in zip(AGREEMENT, AGREEMENT_COLORS):
        sub = frame[frame["category"] == cat]
        ax.scatter(sub["rank_a"], sub["rank_b"], s=size, marker="s", color=color, label=f"{cat} ({len(sub)})",
                   linewidths=0)
    ax.set_xlim(0, n + 1)
    ax.set_ylim(0, n + 1)
    ax.set_aspect("equal")
    ax.set_xlabel("rank of the better system (mean score)")
    ax.set_ylabel("rank of the other system")
    ax.legend(fontsize=6, loc="lower right", markerscale=3)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


# --------------------------------------------------------------------------- published vs reproduced


def reproduce_part_b(col: "Collection", rels: PairRelations | None = None, fig7_frame: pd.DataFrame | None = None,
                     fig5_topics: Sequence[str] | None = None) -> dict[str, object]:
    """Every Part-B item of ``data/published/mm23.csv`` recomputed on ``col`` (keys = items).

    They come from the collection (on a simulated collection they are the simulated analogue and
    must not be reported as reproductions — see :func:`split_simulated`); the items that follow
    from the paper's printed numbers are in :func:`reproduce_from_printed`. ``fig5_topics`` are the
    Fig. 5 topics (default: the first 25 in collection order).
    """
    from irscales.measures import NDCG, P

    out: dict[str, object] = {}
    rels = rels if rels is not None else _relations_of(col)
    depths = [k for k in TABLE3_DEPTHS if k <= rels.depth]
    t3 = table3(rels, depths) if depths else None
    for k in depths:
        out[f"table3/k{k}/equal"] = float(t3.loc[k, "equal %"])
        out[f"table3/k{k}/separable"] = float(t3.loc[k, "separable %"])
        out[f"table3/k{k}/nonsep"] = float(t3.loc[k, "non-sep. %"])
    out["table3/serp_pairs"] = rels.n_pairs * len(rels.topics)
    mix_depths = [k for k in (5, 50) if k <= rels.depth]
    mix = relevant_mix(col.binary(), mix_depths) if mix_depths else pd.DataFrame()
    for k in mix.index:
        out[f"s3/mix_k{k}/relevant"] = float(mix.loc[k, "relevant %"])
        out[f"s3/mix_k{k}/nonrelevant"] = float(mix.loc[k, "non-relevant %"])
    if rels.depth >= 10:
        a, b = fig5_pair(col, 10)
        full = pair_topics(col, a, b, 10)
        sizes = full.groupby("group").size().reindex(GROUPS, fill_value=0)
        for key, g in zip(("group1_nonsep_via_ns", "group2_ns", "group3_equal", "group4_ni",
                           "group5_nonsep_via_ni"), GROUPS):
            out[f"fig6/{key}"] = int(sizes[g])
        out["fig6/nonsep_topics"] = int(sizes[GROUPS[0]] + sizes[GROUPS[4]])
        t5 = list(fig5_topics) if fig5_topics is not None else list(col.topics[:25])
        f5 = full[full["topic"].isin(t5)]
        out["fig5/group5_nonsep_via_ni"] = int((f5["group"] == GROUPS[4]).sum())
        pair_scores = col.subset(systems=[a, b])
        for name, m in (("Prec@10", P(k=10)), ("NDCG", NDCG(discount="log2p1"))):
            out[f"s3/fig5pair/{name}/t_p"] = float(metric_tests(pair_scores.evaluate(m, 10), ["t"])["t"][0][0])
        ms = metrics_at(10)
        for name in ("AP", "RBP(0.5)", "RBP(0.8)"):
            pv = float(metric_tests(pair_scores.evaluate(ms[name], 10), ["t"])["t"][0][0])
            out[f"s3/fig5pair/{name}/t_p_at_least_0.05"] = "yes" if pv >= 0.05 else "no"
        favour = []
        for m in ms.values():
            v = _exact_values(col, m, 10, [a, b])
            if getattr(m, "rational", False):
                favour.append(sum(v[0], Fraction(0)) > sum(v[1], Fraction(0)))
            else:
                s0, s1 = float(np.sum(v[0])), float(np.sum(v[1]))
                favour.append(ipso.exact_sign(s0, s1, 10 * len(v[0])) > 0)
        out["s3/fig5pair/all_metrics_favour_A"] = "yes" if all(favour) else "no"
        tri = triangle(col, 10, "t", 0.05, rels=rels)
        frac = tri["category"].value_counts(normalize=True).reindex(AGREEMENT, fill_value=0)
        out["fig8a/both_yes"] = 100 * float(frac["Both: Yes"])
        out["fig8a/metric_yes"] = 100 * float(frac["Metric: Yes"])
        out["fig8a/metric_significant"] = 100 * float(tri["metric_sig"].mean())
        out["fig8a/ipso_significant"] = 100 * float(tri["ipso_sig"].mean())
    if fig7_frame is not None:
        agree = fig7_frame[fig7_frame["category"].isin(AGREEMENT[:2])].groupby(
            ["metric", "depth", "test"])["fraction"].sum()
        out["fig7/agreement_at_least_75pct"] = "yes" if float(agree.min()) >= 0.75 else "no"
    return out


def split_simulated(col: "Collection", reproduced: Mapping[str, object], published: pd.DataFrame,
                    paper_runs: bool | None = None) -> tuple[dict, dict]:
    """(values to compare, notes): unless ``col`` holds the paper's own runs, items of kind ``trec``
    are moved to the notes as "… analogue: …" so they are never counted as reproductions.

    ``paper_runs`` says whether ``col`` is the Robust 2004 runs (default: any non-simulated
    collection is taken to be); a public collection such as the Grid of Points gives analogues too.
    """
    paper_runs = (not col.is_simulated) if paper_runs is None else paper_runs
    if paper_runs and not col.is_simulated:
        return dict(reproduced), {}
    what = "simulated" if col.is_simulated else f"{col.provenance}"
    kind = dict(zip(published["item"], published["kind"]))
    keep, notes = {}, {}
    for item, v in reproduced.items():
        if kind.get(item) == "trec":
            shown = f"{v:.4g}" if isinstance(v, float) else str(v)
            notes[item] = f"needs the Robust 2004 runs; {what} analogue: {shown}"
        else:
            keep[item] = v
    return keep, notes


# ------------------------------------------------------------ from the paper's printed numbers

_PRODUCT = re.compile(r"(\d[\d,]*(?:\s*×\s*\d[\d,]*)+(?:\s*/\s*\d+)?)\s*=\s*(\d[\d,]*)")


def printed_product(text: str) -> tuple[list[int], int, Fraction]:
    """The first product the paper prints in ``text`` ("a×b×c/d=v"): (factors, divisor, left side
    evaluated exactly), so the paper's own arithmetic can be checked against its printed v."""
    m = _PRODUCT.search(text)
    if m is None:
        raise ValueError(f"no printed product 'a×b=v' in {text!r}")
    left, _, div = m.group(1).partition("/")
    factors = [int(f.replace(",", "")) for f in left.split("×")]
    divisor = int(div) if div else 1
    return factors, divisor, Fraction(math.prod(factors), divisor)


def sign_test_one_sided(x: int, y: int) -> Fraction:
    """Exact one-tailed sign test P(X ≥ max(x, y)) for X ~ Binomial(x + y, 1/2)."""
    n, hi = x + y, max(x, y)
    return Fraction(sum(math.comb(n, m) for m in range(hi, n + 1)), 2**n)


def _printed_int(pub: pd.DataFrame, item: str) -> int:
    return int(str(pub.loc[item, "value"]).replace(",", ""))


def reproduce_from_printed(published: pd.DataFrame) -> tuple[dict[str, object], dict[str, str]]:
    """MM23 §3 items that follow from numbers the paper itself prints (route ``printed``), with
    notes; ``published`` is ``data/published/mm23.csv``, whose printed inputs are read, never typed.

    Inputs: the Robust setup (``s3/setup/systems``, ``s3/setup/topics``), the five Fig. 6 group
    sizes and the count of runs with unjudged documents. Derived: the system pairs C(S, 2), the
    SERP pairs T·C(S, 2), the Fig. 6 totals, the share of runs with unjudged documents, the
    paper's product "110×259", and the three worked IPSO sign tests of §3 "Statistical Testing".
    """
    pub = published.set_index("item")
    systems, topics = _printed_int(pub, "s3/setup/systems"), _printed_int(pub, "s3/setup/topics")
    g = {key: _printed_int(pub, f"fig6/{key}") for key in (
        "group1_nonsep_via_ns", "group2_ns", "group3_equal", "group4_ni", "group5_nonsep_via_ni")}
    out: dict[str, object] = {}
    notes: dict[str, str] = {}
    pairs = math.comb(systems, 2)
    out["s3/system_pairs"] = pairs
    notes["s3/system_pairs"] = f"recomputed from the printed system count: C({systems}, 2) = {pairs:,}"
    out["table3/serp_pairs"] = topics * pairs
    notes["table3/serp_pairs"] = f"recomputed from the printed setup: {topics} topics × C({systems}, 2) = {topics * pairs:,}"
    runs = systems * topics
    factors, divisor, exact = printed_product(str(pub.loc["s3/unjudged/system_query_runs", "context"]))
    product = int(exact) if exact.denominator == 1 else float(exact)
    out["s3/unjudged/system_query_runs"] = product
    shown = "×".join(map(str, factors)) + (f"/{divisor}" if divisor != 1 else "")
    if product == _printed_int(pub, "s3/unjudged/system_query_runs"):
        notes["s3/unjudged/system_query_runs"] = f"the printed product {shown} = {product:,} checks"
    else:
        notes["s3/unjudged/system_query_runs"] = (
            f"the paper's arithmetic is wrong: {shown} = {product:,}, not the printed "
            f"{pub.loc['s3/unjudged/system_query_runs', 'value']}; the printed result is {systems}×{topics} = {runs:,} "
            f"(systems × topics of §3), so the factor {factors[-1]} is a misprint of {topics}")
    unjudged = _printed_int(pub, "s3/unjudged/runs_with_unjudged")
    out["s3/unjudged/share_with_unjudged"] = 100 * unjudged / runs
    notes["s3/unjudged/share_with_unjudged"] = (
        f"recomputed from the printed counts: {unjudged:,} / ({systems} × {topics} = {runs:,}) = {100 * unjudged / runs:.2f}%")
    out["fig6/topics_total"] = sum(g.values())
    notes["fig6/topics_total"] = (f"the five printed group sizes add up to {sum(g.values())}; "
                                  f"the paper's topic count is {topics}")
    nonsep = g["group1_nonsep_via_ns"] + g["group5_nonsep_via_ni"]
    out["fig6/nonsep_topics"] = nonsep
    notes["fig6/nonsep_topics"] = (f"recomputed from the printed Fig. 6 group sizes: "
                                   f"{g['group1_nonsep_via_ns']} + {g['group5_nonsep_via_ni']} non-separable topics")
    ns, ni = g["group2_ns"], g["group4_ni"]
    p, _ = sign_test_pvalues([ns, ns, ns + nonsep], [ni, ni + nonsep, ni])
    out["s3/ipso_sign_test/p_81_vs_109"] = float(p[0])
    notes["s3/ipso_sign_test/p_81_vs_109"] = f"recomputed from the printed counts |ns| = {ns}, |ni| = {ni}: exact two-tailed sign test"
    out["s3/ipso_sign_test/p_81_vs_145_below_0.01"] = "yes" if p[1] < 0.01 else "no"
    notes["s3/ipso_sign_test/p_81_vs_145_below_0.01"] = (
        f"recomputed from the printed counts: {ns} vs {ni} + {nonsep} gives p = {p[1]:.2g} (exact, two-tailed)")
    out["s3/ipso_sign_test/p_117_vs_109"] = float(p[2])
    one = sign_test_one_sided(ns + nonsep, ni)
    notes["s3/ipso_sign_test/p_117_vs_109"] = (
        f"recomputed from the printed counts: {ns} + {nonsep} = {ns + nonsep} vs {ni} gives p = {p[2]:.2f} two-sided "
        f"({float(one):.2f} one-sided) by the exact sign test that gives the paper's p for {ns} vs {ni} "
        f"({float(p[0]):.4f}); we found no reading of the counts that gives the printed value")
    return out, notes
