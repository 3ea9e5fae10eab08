"""FFF21's measures against their ranked ("interval-scaled") versions on the runs of a collection (FFF21 §6–7),
as FFF21's tables take them: an adapter over :mod:`irscales.interval`, the one engine of the API.

For a :class:`~irscales.data.collection.Collection` cut at run length N, :func:`ranked_scores` computes
the 11 measures of FFF21 §6 per (topic, system) and their ranked versions

    M_R(r) = φ(M(r)),   φ(m) = |{x ∈ M(REL^N) : x ≤ m}|                (FFF21 §5, eq. 2, ``unq``)

or the mid-rank of the run among all 2^N runs (``mid``, §7.1.3). φ is what ``irscales.evaluate(...,
ranked=True, phi=True)`` returns: each measure is planned by :func:`irscales.interval.plan` (closed form,
counting, cached or built scale) and its runs ranked by :func:`irscales.interval.interval_values` (or, for
counted routes, one count for every tie strategy, :meth:`irscales.enumeration.routes.Route.phi_runs_ties`,
the same values); :func:`interval_phis` holds them as FFF21's tables do (:func:`compact_phi`). Runs are
binarised leniently (grade > 0, FFF21 §6) and runs shorter than N are padded with not relevant documents
(§5.1). The recall-base dependent measures R, AP, nDCG are ranked on the scale of their numerator (P,
SP, DCG; :func:`irscales.enumeration._runs.numerator`), one scale per run length for every topic, which
is FFF21's "surrogate" of §5.2.2; so R_R = P_R, nDCG_R = DCG_R, and also RBP_p03_R = RBP_p05_R (same
order of runs, FFP19), which the tests check rather than assume. FFF21's Tables 2–6 built on these
scores are :mod:`irscales.papers.fff21.tables`; the graded tables (:mod:`irscales.papers.fff21.graded_scores`)
use the same adapter.

Exactness: overall τ compares system means, and ties among means decide τ. Rational measures (P, R,
AP, RR, RBP) are evaluated as :class:`fractions.Fraction` (``Measure.exact``), and so are DCG and
nDCG when N ≤ their log base (every discount is 1: DCG = the sum of the gains, nDCG = that over the
ideal sum, :func:`small_dcg_fractions`); so their means are exact; ranked values are integers (``unq``)
or half-integers (``mid``), whose float sums over ≤ 2^20 topics are exact. DCG and nDCG are irrational;
their floats are *snapped*: every run with the same exact value (same φ, decided exactly by the engine)
gets one float, and a check asserts that distinct values keep distinct, correctly ordered floats
(:func:`snap_floats`). Their system means are ordered exactly (:class:`irscales.enumeration._dcg.ExactDCG`:
integer vectors over the u_m = ln B/ln m, ordered in ``Decimal``). A real collection does tie system
means of DCG (two runs with the same relevant ranks on every topic). FFF21's option of rounding means
to 8 decimals (footnote 9) is ``decimals=8``.

FFF21's own conventions (issue 15; on the real TREC-8 runs they reproduce its printed values):
``decimals=8``; ``ranked_scores(ap="fff21-float")`` — AP and the scale of SP in double precision,
``unique`` over the doubles, which splits exact ties. The defaults stay exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping, Sequence

import numpy as np

from irscales import measures as M
from irscales.correlation import system_means
from irscales.data.collection import Collection
from irscales.enumeration._dcg import ExactDCG, exact_dcg
from irscales.enumeration._runs import numerator
from irscales.options import UNQ, Settings
from irscales.interval import IntervalPlan, interval_values, plan, scaled_runs

__all__ = [
    "PAPER_ORDER", "RECALL_BASE_FREE", "RECALL_BASE", "TIES", "AP_CONVENTIONS", "RankedScores", "ranked_scores",
    "track_name", "float_sp", "float_sp_phi", "snap_floats", "snapped_by_phi", "check_increasing", "checked_means",
    "compact_phi", "interval_phis", "small_dcg_fractions", "exact_scores",
]

#: The 11 measures in the column order of FFF21 Tables 2–3.
PAPER_ORDER = ("P", "RBP_p05", "RR", "RBP_p03", "RBP_p08", "DCG_b02", "DCG_b10", "R", "AP", "nDCG_b02", "nDCG_b10")
#: Measures not depending on the recall base (Table 5) and depending on it (Table 6), FFF21 §7.
RECALL_BASE_FREE = PAPER_ORDER[:7]
RECALL_BASE = PAPER_ORDER[7:]
TIES = (UNQ, "mid")


def track_name(collection: Collection, name: str | None = None) -> str:
    """Row prefix of a collection: the paper's ``T08`` style, ``sim-`` prefixed when simulated.

    ``name`` defaults to the preset name of a simulated collection (``sim-t08`` → ``sim-T08``) or of a
    public grid (``gop-cisi``).
    """
    if name is None:
        kind, _, rest = collection.provenance.partition(":")
        if kind.strip() not in ("simulated", "public"):  # presets: "simulated: sim-t08 …", "public: gop-cisi …"
            raise ValueError("track_name: pass a name (e.g. 'T08') for a collection that is not a preset")
        name = rest.split()[0]
    if collection.is_simulated:
        base = name[4:] if name.lower().startswith("sim-") else name
        return "sim-" + base.upper()
    return name


@dataclass(frozen=True)
class RankedScores:
    """Scores ``(T, S)`` of the FFF21 measures and their ranked versions on one (track, N).

    ``original[m]``: Fractions (object array) for rational measures, snapped floats for DCG/nDCG.
    ``ranked[ties][m]``: exact φ (:mod:`irscales.enumeration.ties`): int64 (``unq``) or float64 half-integers
    (``mid``) wherever they fit (N ≤ 52), else Python ints / Fractions in object arrays.
    """

    track: str
    N: int
    simulated: bool
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    original: Mapping[str, np.ndarray]
    ranked: Mapping[str, Mapping[str, np.ndarray]]
    min_rb: int = 0
    exact: Mapping[str, "ExactDCG"] = field(default_factory=dict, repr=False, compare=False)
    float_measures: frozenset = frozenset()  # measures computed by a float convention (ap="fff21-float")
    sig_cache: dict = field(default_factory=dict, repr=False, compare=False)
    means_cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def row(self) -> str:
        """Row label as in FFF21 Tables 2–3: ``T08_05`` (``sim-T08_05`` when simulated)."""
        return f"{self.track}_{self.N:02d}"

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self.original)

    def original_means(self, m: str, decimals: int | None = None) -> np.ndarray:
        """System means of measure ``m`` for Kendall's τ: exact mean codes for DCG/nDCG
        (:meth:`ExactDCG.mean_codes`; τ depends only on their order and ties), the float means of a
        float convention, else :func:`checked_means`. Computed once per (measure, decimals), since every
        table asks again."""
        if (m, decimals) not in self.means_cache:
            if decimals is None and m in self.exact:
                means = self.exact[m].mean_codes()
            elif m in self.float_measures:  # the float convention is the definition: compare its float means
                means = system_means(self.original[m], decimals)
            else:
                means = checked_means(self.original[m], decimals, f"{self.row} {m}")
            self.means_cache[m, decimals] = means
        return self.means_cache[m, decimals].copy()



#: How AP and its ranked version are computed: ``"exact"`` (Fractions; φ on the exact scale of SP)
#: or ``"fff21-float"`` (the paper's double precision, see :func:`float_sp`).
AP_CONVENTIONS = ("exact", "fff21-float")


def float_sp(rel: np.ndarray) -> np.ndarray:
    """SP = Σ_i rel_i · k_i / i of binary runs ``rel`` (..., N) in double precision, summed rank by
    rank from rank 1 (k_i = relevant documents in ranks 1..i), as a MATLAB loop would."""
    N = rel.shape[-1]
    k = np.cumsum(rel > 0, axis=-1).astype(float)
    acc = np.zeros(rel.shape[:-1])
    for i in range(N):
        acc = acc + np.where(rel[..., i] > 0, k[..., i] / float(i + 1), 0.0)
    return acc


def float_sp_phi(rel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FFF21's ranked AP (convention ``"fff21-float"``): φ of each run ``rel`` (S, T, N) on the scale
    of SP *as floats*: the double-precision SP (:func:`float_sp`) of all 2^N runs, ``unique`` over
    the floats (exact ties such as 1 + 2/3 + 3/5 summed in different rank patterns split by an ulp),
    φ_unq = distinct floats ≤ the run's float, φ_mid = its mid-rank among the 2^N floats. Returns
    (unq, mid), each (T, S). All 2^N doubles are held in memory (8.6 GB at N = 30) and sorted.

    This reproduces FFF21's printed ranked-AP values on T08 (Tables 2–3 at N = 10, 20: 0.8243,
    0.8197, 0.8213, 0.8161), where the exact scale gives 0.8240, 0.8195, 0.8214, 0.8161 (issue 15).
    """
    S, T, N = rel.shape
    h, nb = N // 2, N - N // 2
    top = ((np.arange(2**h)[:, None] >> (h - 1 - np.arange(h))) & 1).astype(np.int8)
    bot = ((np.arange(2**nb)[:, None] >> (nb - 1 - np.arange(nb))) & 1).astype(np.int8)
    a, k_top, cb = float_sp(top), top.sum(axis=1).astype(np.int64), np.cumsum(bot, axis=1)
    values = np.empty(2**N)
    block = max(1, (1 << 22) >> nb)
    for p0 in range(0, 2**h, block):  # continue each top half's float sum over every bottom half
        p1 = min(2**h, p0 + block)
        acc = np.repeat(a[p0:p1, None], 2**nb, axis=1)
        for j in range(nb):
            term = (k_top[p0:p1, None] + cb[None, :, j]).astype(float) / float(h + j + 1)
            acc = acc + np.where(bot[None, :, j] > 0, term, 0.0)
        values[p0 << nb:p1 << nb] = acc.ravel()
    values.sort()
    q = float_sp(rel).T  # (T, S)
    qs = np.unique(q)
    right, left = np.searchsorted(values, qs, "right"), np.searchsorted(values, qs, "left")
    distinct = np.zeros(len(qs), np.int64)  # distinct floats among values[:right], chunk by chunk
    seen, prev, qi, step = 0, None, 0, 1 << 24
    for s0 in range(0, len(values), step):
        chunk = values[s0:s0 + step]
        new = np.empty(len(chunk), bool)
        new[0] = prev is None or chunk[0] != prev
        new[1:] = chunk[1:] != chunk[:-1]
        cum = np.cumsum(new)
        while qi < len(qs) and right[qi] <= s0 + len(chunk):
            distinct[qi] = seen + (cum[right[qi] - s0 - 1] if right[qi] > s0 else 0)
            qi += 1
        seen, prev = seen + int(cum[-1]), chunk[-1]
    idx = np.searchsorted(qs, q)
    return distinct[idx], (left[idx] + 1 + right[idx]) / 2


def snap_floats(values: np.ndarray, key: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One float per exact value: runs with the same exact key get the smallest of their floats.

    Returns (snapped values, the distinct keys in increasing order, their floats).
    ``key`` is an exact integer code of the value (φ, possibly combined with the topic); the check
    that the snapped floats are strictly increasing in the key proves that no two distinct exact
    values were merged or swapped by float rounding, so float comparisons of the result are exact.
    """
    u, inv = np.unique(key.ravel(), return_inverse=True)
    lo = np.full(len(u), np.inf)
    hi = np.full(len(u), -np.inf)
    np.minimum.at(lo, inv, values.ravel())
    np.maximum.at(hi, inv, values.ravel())
    if np.any(hi - lo > 1e-9 * np.maximum(1.0, np.abs(hi))):
        raise ArithmeticError(f"{what}: runs with the same exact value have floats far apart")
    return lo[inv].reshape(values.shape), u, lo


def snapped_by_phi(values: np.ndarray, phi: np.ndarray, what: str,
                   topics: Sequence[str] | None = None) -> np.ndarray:
    """Float scores ``values`` (T, S) of an irrational measure snapped to one float per exact value
    (:func:`snap_floats`), the exact value being told by φ_unq ``phi`` (T, S) on the scale of the measure
    (or of its numerator: DCG for nDCG). With ``topics`` (nDCG: one normaliser per topic) equal
    (topic, φ) means equal value and the order is checked topic by topic; else equal φ means equal value.
    Raises ``ArithmeticError`` when distinct values would not keep distinct, correctly ordered floats."""
    if topics is None:
        snapped, codes, floats = snap_floats(values, phi, what)
        check_increasing(codes, floats, what)
        return snapped
    T = len(topics)
    key = np.asarray(phi).astype(np.int64) * T + np.arange(T)[:, None]
    snapped, codes, floats = snap_floats(values, key, what)
    topic = codes % T
    for t in np.unique(topic):
        check_increasing(codes[topic == t], floats[topic == t], f"{what} on topic {topics[t]}")
    return snapped


def check_increasing(codes: np.ndarray, floats: np.ndarray, what: str) -> None:
    if len(floats) > 1 and not np.all(np.diff(floats) > 0):
        i = int(np.nonzero(np.diff(floats) <= 0)[0][0])
        raise ArithmeticError(f"{what}: distinct exact values {codes[i]} < {codes[i + 1]} have floats "
                              f"{floats[i]!r} >= {floats[i + 1]!r}; float means cannot be trusted")



def compact_phi(phi: np.ndarray, ties: str) -> np.ndarray:
    """Exact φ (Python ints, halves for ``mid``) as FFF21's tables hold it: int64, or float64 halves for
    ``mid``, when every 2φ is below 2^53 (exact); else the exact Python ints and Fractions in an object array."""
    flat = np.asarray(phi).ravel().tolist()
    if 2 * max((abs(x) for x in flat), default=0) >= 2**53:
        return np.array([Fraction(x) if ties == "mid" else int(x) for x in flat] + [None], dtype=object)[:-1] \
            .reshape(np.shape(phi))
    if ties == "mid":
        return np.array([float(Fraction(x)) for x in flat]).reshape(np.shape(phi))
    return np.array([int(x) for x in flat], dtype=np.int64).reshape(np.shape(phi))


def interval_phis(plans: Mapping[str, IntervalPlan], collection: Collection,
                  progress: bool | None = None) -> dict[str, np.ndarray]:
    """tie → exact φ (T, S) of the plans of one measure (:func:`irscales.interval.plan`, one per tie strategy):
    :func:`irscales.interval.interval_values` (what ``evaluate`` returns), with the counted tie strategies
    taken from one count (:meth:`~irscales.enumeration.routes.Route.phi_runs_ties`, the same values);
    held as :func:`compact_phi`."""
    counted = [t for t, p in plans.items() if p.kind == "count"]
    out = {}
    if counted:
        p = plans[counted[0]]
        shared = p.route.phi_runs_ties(scaled_runs(p, collection), counted, progress=progress)
        out = {t: compact_phi(np.asarray(shared[t]).T, t) for t in counted}
    for t, p in plans.items():
        if t not in out:
            out[t] = compact_phi(interval_values(p, collection, progress=progress).phi, t)
    return out


def small_dcg_fractions(m: M.DCG, collection: Collection, N: int, floats: np.ndarray,
                        ideal: np.ndarray | None = None) -> np.ndarray:
    """DCG/nDCG (T, S) as Fractions at N ≤ the log base: every JK discount is 1, so DCG is the sum of the
    gains (grades, or relevant documents for binary gains) and nDCG divides it by the ideal run's sum
    (graded: ``ideal``, each topic's grades; binary: min(RB, N)); checked against ``floats``."""
    rel = collection.rel_at(N) if m.gains == "graded" else collection.binary(N)
    num = rel.astype(np.int64).sum(axis=-1).T  # (T, S)
    if not m.needs_rb:
        den = np.ones(len(num), np.int64)
    elif ideal is not None:
        den = np.asarray(ideal, dtype=np.int64)[:, :N].sum(axis=1)
    else:
        den = np.minimum(collection.rb, N).astype(np.int64)
    out = np.array([[Fraction(int(a), int(d)) if d else Fraction(0) for a in row] for row, d in zip(num, den)],
                   dtype=object).reshape(num.shape)
    if np.abs(np.vectorize(float, otypes=[float])(out) - floats).max(initial=0) > 1e-12:
        raise ArithmeticError(f"{m.key} at N = {N}: the exact form disagrees with the measure's floats")
    return out


def exact_scores(m: M.Measure, collection: Collection, N: int, phi_unq: np.ndarray,
                 what: str) -> tuple[np.ndarray, ExactDCG | None, bool]:
    """Scores (T, S) of ``m`` on ``collection`` cut at N for FFF21's tables, with the exact form of
    irrational ones and whether the scores are floats: Fractions for rational measures (and DCG/nDCG at
    N ≤ their log base, :func:`small_dcg_fractions`), else floats snapped to one per exact value by φ_unq
    ``phi_unq`` (:func:`snapped_by_phi`; per topic for nDCG, whose normaliser is the topic's)."""
    if m.rational:
        return collection.evaluate(m, depth=N, exact=True), None, False
    vals = np.asarray(collection.evaluate(m, depth=N), dtype=float)  # (T, S); the irrational ones are DCG/nDCG
    ideal = collection.ideal(N) if m.gains == "graded" and m.needs_rb else None
    ex = exact_dcg(m, collection.rel_at(N), collection.rb, N, vals, ideal=ideal)
    if m.discount == "jk" and N <= m.base:  # JK: ranks 1..base all weigh 1, a sum of gains (over the ideal sum)
        return small_dcg_fractions(m, collection, N, vals, ideal), ex, False
    topics = collection.topics if m.needs_rb else None
    return snapped_by_phi(vals, phi_unq, what, topics), ex, True


def ranked_scores(collection: Collection, N: int, measures: Sequence[str] = PAPER_ORDER,
                  ties: Sequence[str] = TIES, track: str | None = None, ap: str = "exact", build: bool = False,
                  cache: bool | str = True, progress: bool | None = None) -> RankedScores:
    """The measures and their ranked versions on ``collection`` cut at run length ``N``.

    measures      names of FFF21 measures (keys of :data:`irscales.measures.CLASSIC_MEASURES`)
    ties          ``unq`` (FFF21 eq. 2) and/or ``mid`` (mid-rank, §7.1.3)
    track         row prefix (default: :func:`track_name`)
    ap            ``"exact"`` (default) or ``"fff21-float"``: AP in double precision (Σ k_i/i summed
                  rank by rank, then ÷ RB) and AP_R on the float scale of SP (:func:`float_sp_phi`),
                  which is how FFF21's printed ranked-AP values come out (issue 15). Needs 8 bytes
                  per run of length N in memory (8.6 GB at N = 30) and minutes at N = 30.
    build         consent to scale builds over the budget (:func:`irscales.interval.plan`): AP's φ_unq at
                  N = 25..40 needs the stored scale of SP (N = 30: minutes and GBs); refused without it
    cache         where scales are stored, as for :func:`irscales.enumeration.scale`
    progress      progress bars of long counts and builds

    Scores are ``(T, S)`` matrices (topics × systems). Every topic must have a recall base > 0 for R,
    AP and nDCG (FFF21's tracks do; a topic without relevant documents has no scale, §5.2.2).
    """
    if not isinstance(collection, Collection):
        raise TypeError(f"ranked_scores: expected a Collection, got {type(collection).__name__}")
    if not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"ranked_scores: N must be a positive integer, got {N!r}")
    unknown = [m for m in measures if m not in M.CLASSIC_MEASURES]
    if unknown:
        raise ValueError(f"ranked_scores: unknown measure(s) {unknown}; choose from {list(PAPER_ORDER)}")
    if ap not in AP_CONVENTIONS:
        raise ValueError(f"ranked_scores: ap must be one of {AP_CONVENTIONS}, got {ap!r}")
    bad = [t for t in ties if t not in TIES]
    if bad:
        raise ValueError(f"ranked_scores: ties must be among {TIES}, got {bad}")
    rb = collection.rb
    if any(m in RECALL_BASE for m in measures) and (rb <= 0).any():
        t = collection.topics[int(np.argmin(rb))]
        raise ValueError(f"ranked_scores: topic {t!r} has no relevant documents; R, AP and nDCG have no "
                         "scale there (FFF21 §5.2.2): drop it with collection.subset(topics=...)")
    track = track or track_name(collection)
    original: dict[str, np.ndarray] = {}
    ranked: dict[str, dict[str, np.ndarray]] = {t: {} for t in ties}
    phis: dict[str, dict[str, np.ndarray]] = {}  # numerator → tie → φ: R shares P's, nDCG DCG's (§5.2.2)
    exact: dict[str, ExactDCG] = {}
    float_names: set[str] = set()
    need = tuple(dict.fromkeys((UNQ, *ties)))  # unq tells the exact ties of the snapped floats
    for name in measures:
        m = M.CLASSIC_MEASURES[name]
        if name == "AP" and ap == "fff21-float":
            rel = collection.binary(N)
            unq, mid = float_sp_phi(rel)
            for t in ties:
                ranked[t][name] = unq.astype(np.int64) if t == UNQ else mid.astype(float)
            original[name] = float_sp(rel).T / rb[:, None]
            float_names.add(name)
            continue
        key = numerator(m).key
        if key not in phis:  # the API's plan and values: closed form, counted, cached or built (equal φ, tested)
            plans = {t: plan([(name, m)], N, Settings(ties=t, cache=cache, build=build), grades=1,
                              require=True)[0][name]
                     for t in need}
            phis[key] = interval_phis(plans, collection, progress=progress)
        for t in ties:
            ranked[t][name] = phis[key][t]
        original[name], ex, _ = exact_scores(m, collection, N, phis[key][UNQ], f"{track}_{int(N):02d} {name}")
        if ex is not None:
            exact[name] = ex
    return RankedScores(track=track, N=int(N), simulated=collection.is_simulated, systems=collection.systems,
                        topics=collection.topics, original=original, ranked=ranked, min_rb=int(rb.min(initial=0)),
                        exact=exact, float_measures=frozenset(float_names))


def checked_means(scores: np.ndarray, decimals: int | None, what: str) -> np.ndarray:
    """System means (FFF21 §3.3), with a guard that makes float means safe to compare exactly.

    Fractions and integers give exact means. For float scores without an exact form, two means closer than
    1e-9 (relative) are accepted only when they are bit-identical *and* provably equal: the two
    systems have the same multiset of per-topic values, or all their values are integers (exact
    floats, exact sums below 2^53); any other near tie could be an
    artefact of rounding and raises, pointing to ``decimals=8``. Distinct means farther apart than
    1e-9 are ordered correctly, since the float error of a mean of ≤ 10^4 values is below 1e-11.
    """
    means = system_means(scores, decimals)
    a = np.asarray(scores)
    if decimals is not None or a.dtype == object or not np.issubdtype(a.dtype, np.floating):
        return means
    order = np.argsort(means, kind="stable")
    m = means[order]
    tol = 1e-9 * max(1.0, float(np.abs(m).max()))
    for k in np.nonzero(np.diff(m) <= tol)[0]:
        i, j = order[k], order[k + 1]
        # provably equal exact means: the same multiset of values, or integer values (DCG_b10 at
        # N ≤ 10 counts relevant documents) whose float sums are exact
        same = np.array_equal(np.sort(a[:, i]), np.sort(a[:, j]))
        integral = bool(np.all(a[:, [i, j]] == np.round(a[:, [i, j]])))
        if m[k] != m[k + 1] or not (same or integral):
            raise ArithmeticError(f"{what}: the means of systems {i} and {j} differ by {m[k + 1] - m[k]:.3g}, "
                                  "too little to tell a tie from rounding; use decimals=8 (FFF21 footnote 9)")
    return means
