"""Measures against their ranked ("interval-scaled") versions on runs: FFF21 Tables 2–6 (§6–7).

For a :class:`~irscales.data.collection.Collection` cut at run length N, :func:`ranked_scores` computes
the 11 measures of FFF21 §6 per (topic, system) and their ranked versions

    M_R(r) = φ(M(r)),   φ(m) = |{x ∈ M(REL^N) : x ≤ m}|                (FFF21 §5, eq. 2, ``unq``)

or the mid-rank of the run among all 2^N runs (``mid``, §7.1.3), read off the exact scale of the
enumeration engine (:meth:`irscales.enumeration.Scale.phi_runs`: from the run itself, never from a
float value), or counted without a scale where :mod:`irscales.counting` applies (P, R, RR, RBP,
DCG, nDCG: the same φ, run by run). Runs are binarised leniently (grade > 0, FFF21 §6) and runs shorter than N are padded
with not relevant documents (§5.1). The recall-base dependent measures R, AP, nDCG are ranked on the
scale of their numerator (P, SP, DCG), one scale per run length for every topic, which is FFF21's
"surrogate" of §5.2.2; so R_R = P_R, nDCG_R = DCG_R, and also RBP_p03_R = RBP_p05_R (same order of
runs, FFP19), which the tests check rather than assume.

The tables (score matrices are ``(T topics, S systems)`` as in :mod:`irscales.correlation`):

* :func:`table2` / :func:`table3` — overall Kendall τ_b between each measure and its ranked version
  (``unq`` / ``mid``), one row per (track, N) named like the paper's ``T08_05`` (``sim-T08_05`` for a
  simulated collection); :func:`topic_by_topic_check` — the §7.1 sanity check that τ per topic is 1.
* :func:`table4` — overall τ of every pair of measures (Msr) and of their ranked versions (RnkMsr),
  Δ% = (RnkMsr − Msr)/Msr · 100, pairs in the paper's order (:data:`TABLE4_PAIRS`).
* :func:`table56` — for each measure and each of the eight tests of
  :mod:`irscales.stats.significance`: Sig, S2NS, NS2S, their ratios to Sig and Δ% = (S2NS + NS2S)/Sig;
  Table 5 = measures not depending on the recall base, Table 6 = the others;
  :func:`grand_mean_delta` — the "25% ± 11%" of §7.3 (mean ± sample sd of Δ% over tracks,
  measures and tests; tests with Sig = 0 left out).

Exactness: overall τ compares system means, and ties among means decide τ. Rational measures (P, R,
AP, RR, RBP) are evaluated as :class:`fractions.Fraction` (``Measure.exact``), and so are DCG and
nDCG when N ≤ their log base (every discount is 1: DCG = #relevant, nDCG = #relevant/min(RB, N));
so their means are exact; ranked values are integers (``unq``) or half-integers (``mid``), whose float sums over ≤ 2^20
topics are exact. DCG and nDCG are irrational; their floats are *snapped*: every run with the same
exact value (same φ, decided exactly by the engine) gets one float, and a check asserts that distinct
values keep distinct, correctly ordered floats (:func:`_snap`). Their system means are ordered
exactly (:class:`ExactDCG`): with an integer log base every discount is u_m/k with u_m = ln B/ln m
(the engine's identity, :func:`irscales.enumeration.dcg_root_coefficients`), so the sum of a
system's DCG over the topics is an integer vector over the u_m — equal vectors are an exact tie —
and distinct sums are ordered in ``Decimal`` at 50 then 120 digits (nDCG: one vector per group of
topics sharing the ideal DCG). A real collection does tie system means of DCG (two runs with the
same relevant ranks on every topic). FFF21's option of rounding means to 8 decimals (footnote 9)
is ``decimals=8``. The significance tests receive the same
arrays (:mod:`irscales.stats.significance` decides ties between scores on exact order codes).

FFF21's own conventions (issue 15; on the real TREC-8 runs they reproduce its printed values):
``decimals=8``; ``ranked_scores(ap="fff21-float")`` — AP and the scale of SP in double precision,
``unique`` over the doubles, which splits exact ties; ``table56(critical="matlab")`` — MATLAB's
Tukey critical value, which ignores error df above 120. The defaults stay exact.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from irscales import counting
from irscales import enumeration as E
from irscales import measures as M
from irscales.stats import significance as SG
from irscales.stats.anova import CRITICAL_CONVENTIONS, studentized_range_critical
from irscales.data.collection import Collection
from irscales.correlation import kendall_tau, system_means, topic_by_topic_tau
from irscales.paths import figures_dir

if TYPE_CHECKING:
    import matplotlib.figure

__all__ = [
    "PAPER_ORDER", "RECALL_BASE_FREE", "RECALL_BASE", "TIES", "TABLE4_PAIRS", "RankedScores", "ExactDCG",
    "ranked_scores", "track_name", "table2", "table3", "topic_by_topic_check", "table4", "table56",
    "grand_mean_delta", "save_table", "published_items", "plot_significance_changes", "critical_value_flips",
    "difference_notes", "float_ap_taus", "AP_FLOAT_ORDERS", "AP_CONVENTIONS",
]

#: The 11 measures in the column order of FFF21 Tables 2–3.
PAPER_ORDER = ("P", "RBP_p05", "RR", "RBP_p03", "RBP_p08", "DCG_b02", "DCG_b10", "R", "AP", "nDCG_b02", "nDCG_b10")
#: Measures not depending on the recall base (Table 5) and depending on it (Table 6), FFF21 §7.
RECALL_BASE_FREE = PAPER_ORDER[:7]
RECALL_BASE = PAPER_ORDER[7:]
TIES = ("unq", "mid")

# The row order of FFF21 Table 4: the recall-base-free pairs, then each recall-base measure against
# the measures before it (its order of partners is the paper's).
_FREE_PAIRS = [("P", "RBP_p05"), ("P", "RR"), ("P", "RBP_p03"), ("P", "RBP_p08"), ("P", "DCG_b02"),
               ("P", "DCG_b10"), ("RBP_p05", "RBP_p03"), ("RBP_p05", "RBP_p08"), ("RBP_p05", "RR"),
               ("RBP_p05", "DCG_b02"), ("RBP_p05", "DCG_b10"), ("RBP_p03", "RBP_p08"), ("RBP_p03", "RR"),
               ("RBP_p03", "DCG_b02"), ("RBP_p03", "DCG_b10"), ("RBP_p08", "RR"), ("RBP_p08", "DCG_b02"),
               ("RBP_p08", "DCG_b10"), ("RR", "DCG_b02"), ("RR", "DCG_b10"), ("DCG_b02", "DCG_b10")]
_PARTNERS = ("P", "RBP_p05", "RBP_p03", "RBP_p08", "RR", "DCG_b02", "DCG_b10")
_RB_PAIRS = ([("R", b) for b in _PARTNERS + ("AP", "nDCG_b02", "nDCG_b10")]
             + [("AP", b) for b in _PARTNERS + ("nDCG_b02", "nDCG_b10")]
             + [("nDCG_b02", b) for b in _PARTNERS + ("nDCG_b10",)]
             + [("nDCG_b10", b) for b in _PARTNERS])
#: The 55 pairs of FFF21 Table 4, in its row order.
TABLE4_PAIRS: tuple[tuple[str, str], ...] = tuple(_FREE_PAIRS + _RB_PAIRS)

# Scale on which each measure is ranked: the recall-base-free numerator (enumeration module doc).
_SCALE_OF = {"R": "P", "AP": "SP", "nDCG_b02": "DCG_b02", "nDCG_b10": "DCG_b10"}


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
    ``ranked[ties][m]``: int64 (``unq``) or float64 half-integers (``mid``).
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
    _sig_cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def row(self) -> str:
        """Row label as in FFF21 Tables 2–3: ``T08_05`` (``sim-T08_05`` when simulated)."""
        return f"{self.track}_{self.N:02d}"

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self.original)


@dataclass(frozen=True)
class ExactDCG:
    """Exact DCG (``norm`` None) or nDCG scores ``(T, S)`` of one measure as integer vectors.

    The value on (topic t, system s) is ``Σ_r coef[t, s, r] / lcm[r] · u_r`` with
    ``u_r = ln logbase / ln roots[r]``, divided for nDCG by the same form of ``norm[t]`` (the ideal
    DCG of the topic). :meth:`mean_codes` orders the systems' means exactly.
    """

    coef: np.ndarray  # (T, S, R) int64
    roots: tuple[int, ...]
    lcm: tuple[int, ...]
    logbase: int
    norm: np.ndarray | None = None  # (T, R) int64

    def _u(self, digits: int) -> list[Decimal]:
        lnb = Decimal(self.logbase).ln()
        return [lnb / Decimal(r).ln() / l for r, l in zip(self.roots, self.lcm)]

    def floats(self) -> np.ndarray:
        """The values in float64 (to check the representation against a measure's floats)."""
        u = np.array([np.log(self.logbase) / np.log(r) / l for r, l in zip(self.roots, self.lcm)])
        v = self.coef @ u
        return v if self.norm is None else v / (self.norm @ u)[:, None]

    def _keys(self) -> tuple[list, list]:
        """Per system: a canonical exact form of the summed scores (equal forms ⇒ equal sums) and
        the terms to evaluate it: DCG — the integer vector Σ_t coef_t. nDCG — topics are grouped by
        the direction of their normaliser n (n = f·d, d primitive); a group's sum X = Σ_t coef_t/f_t
        over d·u is split into a rational part q = X_p/d_p (p the first non-zero entry of d) and a
        remainder X − q·d with a zero at p, so a topic where the run is ideal (nDCG = 1) or any
        other rational part ties with the same rational from any group."""
        if self.norm is None:
            tot = self.coef.sum(axis=0)
            return [tuple(int(x) for x in row) for row in tot], [[(row, None)] for row in tot]
        groups: dict[tuple, list[tuple[int, int]]] = {}
        for t, n in enumerate(self.norm):
            f = math.gcd(*(int(x) for x in n))
            groups.setdefault(tuple(int(x) // f for x in n), []).append((t, f))
        keys, terms = [], []
        for s_ in range(self.coef.shape[1]):
            q_total, rems, parts = Fraction(0), [], []
            for d, members in groups.items():
                x = [sum((Fraction(int(self.coef[t, s_, r]), f) for t, f in members), Fraction(0)) for r in range(len(d))]
                piv = next(r for r, v in enumerate(d) if v)
                q = x[piv] / d[piv]
                q_total += q
                rems.append(tuple(a - q * b for a, b in zip(x, d)))
                parts.append((x, d))
            keys.append((q_total, tuple(rems)))
            terms.append(parts)
        return keys, terms

    def _value(self, parts: list, digits: int) -> Decimal:
        with localcontext() as ctx:
            ctx.prec = digits + 10
            u = self._u(digits)
            dot = (lambda v: sum((Decimal(a.numerator) / Decimal(a.denominator) * b if isinstance(a, Fraction)
                                  else int(a) * b for a, b in zip(v, u) if a), Decimal(0)))
            return +sum((dot(x) if d is None else dot(x) / dot(d) for x, d in parts), Decimal(0))

    def mean_codes(self) -> np.ndarray:
        """Dense ranks (int64) of the systems' exact mean scores: equal codes ⇔ equal means.

        Equal canonical forms (:meth:`_keys`) are equal sums; distinct forms are ordered by
        ``Decimal`` values at 50 digits, and at 120 when two are within 1e-40; a pair still within
        1e-110 raises :class:`irscales.enumeration.TieUndecidable` (distinct forms with equal values
        would need an algebraic relation among the ln m, see :mod:`irscales.enumeration`).
        """
        keys, terms = self._keys()
        index: dict = {}
        inv = np.array([index.setdefault(k, len(index)) for k in keys], dtype=np.int64)
        first = {i: terms[keys.index(k)] for k, i in index.items()}
        vals = [self._value(first[i], 50) for i in range(len(index))]
        order = sorted(range(len(index)), key=lambda i: vals[i])
        if any(vals[order[k + 1]] - vals[order[k]] <= Decimal("1e-40") for k in range(len(order) - 1)):
            fine = [self._value(first[i], 120) for i in range(len(index))]
            order = sorted(range(len(index)), key=lambda i: fine[i])
            if any(fine[order[k + 1]] - fine[order[k]] <= Decimal("1e-110") for k in range(len(order) - 1)):
                raise E.TieUndecidable("system means with distinct exact DCG forms could not be separated")
        rank = np.empty(len(index), np.int64)
        rank[order] = np.arange(len(index))
        return rank[inv]


def _exact_dcg(m: M.DCG, rel: np.ndarray, rb: np.ndarray, N: int, floats: np.ndarray) -> ExactDCG | None:
    """The :class:`ExactDCG` of binary DCG/nDCG scores ``floats`` (T, S) of runs ``rel`` (S, T, N),
    checked against the floats; None when the measure has no exact form here (graded gains,
    non-integer base)."""
    if m.gains != "binary" or float(m.base) != int(m.base):
        return None
    roots, lcm, w, logbase = E.dcg_root_coefficients(m, N)
    coef = np.einsum("stn,nr->tsr", (rel > 0).astype(np.int64), w)
    norm = None
    if isinstance(m, M.NDCG):
        ideal = (np.arange(N)[None, :] < np.minimum(rb, N)[:, None]).astype(np.int64)  # min(RB, N) ones
        norm = ideal @ w
    ex = ExactDCG(coef, roots, lcm, logbase, norm)
    if np.abs(ex.floats() - floats).max(initial=0) > 1e-9:
        raise ArithmeticError(f"{m!r}: the exact form of its values disagrees with the measure's floats")
    return ex


#: How AP and its ranked version are computed: ``"exact"`` (Fractions; φ on the exact scale of SP)
#: or ``"fff21-float"`` (the paper's double precision, see :func:`_float_sp`).
AP_CONVENTIONS = ("exact", "fff21-float")


def _float_sp(rel: np.ndarray) -> np.ndarray:
    """SP = Σ_i rel_i · k_i / i of binary runs ``rel`` (..., N) in double precision, summed rank by
    rank from rank 1 (k_i = relevant documents in ranks 1..i), as a MATLAB loop would."""
    N = rel.shape[-1]
    k = np.cumsum(rel > 0, axis=-1).astype(float)
    acc = np.zeros(rel.shape[:-1])
    for i in range(N):
        acc = acc + np.where(rel[..., i] > 0, k[..., i] / float(i + 1), 0.0)
    return acc


def _float_sp_phi(rel: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FFF21's ranked AP (convention ``"fff21-float"``): φ of each run ``rel`` (S, T, N) on the scale
    of SP *as floats*: the double-precision SP (:func:`_float_sp`) of all 2^N runs, ``unique`` over
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
    a, k_top, cb = _float_sp(top), top.sum(axis=1).astype(np.int64), np.cumsum(bot, axis=1)
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
    q = _float_sp(rel).T  # (T, S)
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


def _snap(values: np.ndarray, key: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def _check_increasing(codes: np.ndarray, floats: np.ndarray, what: str) -> None:
    if len(floats) > 1 and not np.all(np.diff(floats) > 0):
        i = int(np.nonzero(np.diff(floats) <= 0)[0][0])
        raise ArithmeticError(f"{what}: distinct exact values {codes[i]} < {codes[i + 1]} have floats "
                              f"{floats[i]!r} >= {floats[i + 1]!r}; float means cannot be trusted")


def _exact_small_dcg(rel: np.ndarray, rb: np.ndarray, N: int, name: str, floats: np.ndarray) -> np.ndarray:
    """DCG/nDCG as Fractions when N ≤ the log base (every discount is 1), checked against the floats."""
    count = rel.sum(-1).T.astype(np.int64)  # (T, S)
    den = np.minimum(rb, N)[:, None] if name in RECALL_BASE else np.ones((count.shape[0], 1), np.int64)
    exact = np.empty(count.shape, dtype=object)
    for idx, c in np.ndenumerate(count):
        exact[idx] = Fraction(int(c), int(den[idx[0], 0]))
    if np.abs(exact.astype(float) - floats).max(initial=0) > 1e-12:
        raise ArithmeticError(f"{name}: the rational form for N ≤ base disagrees with the measure's floats")
    return exact


def ranked_scores(collection: Collection, N: int, measures: Sequence[str] = PAPER_ORDER,
                  ties: Sequence[str] = TIES, track: str | None = None, ap: str = "exact",
                  **scale_kwargs) -> RankedScores:
    """The measures and their ranked versions on ``collection`` cut at run length ``N``.

    measures      names of FFF21 measures (keys of :data:`irscales.measures.FFF21_MEASURES`)
    ties          ``"unq"`` (FFF21 eq. 2) and/or ``"mid"`` (mid-rank, §7.1.3)
    track         row prefix (default: :func:`track_name`)
    ap            ``"exact"`` (default) or ``"fff21-float"``: AP in double precision (Σ k_i/i summed
                  rank by rank, then ÷ RB) and AP_R on the float scale of SP (:func:`_float_sp_phi`),
                  which is how FFF21's printed ranked-AP values come out (issue 15). Needs 8 bytes
                  per run of length N in memory (8.6 GB at N = 30) and minutes at N = 30.
    scale_kwargs  passed to :func:`irscales.enumeration.scale` (``cache``, ``workers``, ``memory_mb``)

    Scores are ``(T, S)`` matrices (topics × systems). Every topic must have a recall base > 0 for R,
    AP and nDCG (FFF21's tracks do; a topic without relevant documents has no scale, §5.2.2).
    """
    if not isinstance(collection, Collection):
        raise TypeError(f"ranked_scores: expected a Collection, got {type(collection).__name__}")
    if not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"ranked_scores: N must be a positive integer, got {N!r}")
    unknown = [m for m in measures if m not in M.FFF21_MEASURES]
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
    rel = collection.binary(N)  # (S, T, N), lenient binarisation, padded short runs
    original: dict[str, np.ndarray] = {}
    ranked: dict[str, dict[str, np.ndarray]] = {t: {} for t in ties}
    phis: dict[str, dict[str, np.ndarray]] = {}
    exact: dict[str, ExactDCG] = {}
    float_names: set[str] = set()
    for name in measures:
        m = M.FFF21_MEASURES[name]
        sname = _SCALE_OF.get(name, name)
        if name == "AP" and ap == "fff21-float":
            unq, mid = _float_sp_phi(rel)
            for t in ties:
                ranked[t][name] = unq.astype(np.int64) if t == "unq" else mid.astype(float)
            original[name] = _float_sp(rel).T / rb[:, None]
            float_names.add(name)
            continue
        if sname not in phis:
            ms = M.parse(sname)
            if counting.countable(ms, N):  # counted, no scale built; equal φ (tests/test_counting.py)
                phis[sname] = {t: counting.phi_runs(ms, rel, t).T for t in set(ties) | {"unq"}}
            else:
                sc = E.scale(ms, N, **scale_kwargs)
                phis[sname] = {t: sc.phi_runs(rel, ties=t).T for t in set(ties) | {"unq"}}
        for t in ties:
            r = phis[sname][t]
            ranked[t][name] = r.astype(np.int64) if t == "unq" else r.astype(float)
        if m.rational:
            original[name] = collection.evaluate(m, depth=N, exact=True)
            continue
        vals = np.asarray(collection.evaluate(m, depth=N), dtype=float)  # (T, S)
        if isinstance(m, M.DCG) and m.discount == "jk" and m.gains == "binary" and N <= m.base:
            # ranks 1..base all weigh 1: DCG = #relevant and nDCG = #relevant / min(RB, N), rational
            original[name] = _exact_small_dcg(rel, rb, N, name, vals)
            continue
        ex = _exact_dcg(m, rel, rb, N, vals) if isinstance(m, M.DCG) else None
        if ex is not None:
            exact[name] = ex
        phi = phis[sname]["unq"]
        if name in RECALL_BASE:  # nDCG: one normaliser per topic, so equal (topic, φ) ⇒ equal value
            key = phi.astype(np.int64) * len(collection.topics) + np.arange(len(collection.topics))[:, None]
            snapped, codes, floats = _snap(vals, key, name)
            topic = codes % len(collection.topics)
            for t in np.unique(topic):
                _check_increasing(codes[topic == t], floats[topic == t], f"{name} on topic {collection.topics[t]}")
        else:
            snapped, codes, floats = _snap(vals, phi, name)
            _check_increasing(codes, floats, name)
        original[name] = snapped
    return RankedScores(track=track or track_name(collection), N=int(N), simulated=collection.is_simulated,
                        systems=collection.systems, topics=collection.topics, original=original,
                        ranked=ranked, min_rb=int(rb.min(initial=0)), exact=exact,
                        float_measures=frozenset(float_names))


# ----------------------------------------------------------------------------------- Tables 2–3


def _original_means(rs: RankedScores, m: str, decimals: int | None) -> np.ndarray:
    """System means of measure ``m`` of ``rs`` for Kendall's τ: exact mean codes for DCG/nDCG
    (:meth:`ExactDCG.mean_codes`; τ depends only on their order and ties), else :func:`_means`."""
    if decimals is None and m in rs.exact:
        return rs.exact[m].mean_codes()
    if m in rs.float_measures:  # the float convention is the definition: compare its float means
        return system_means(rs.original[m], decimals)
    return _means(rs.original[m], decimals, f"{rs.row} {m}")


def _means(scores: np.ndarray, decimals: int | None, what: str) -> np.ndarray:
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


def table2(results: Iterable[RankedScores], ties: str = "unq", decimals: int | None = None) -> pd.DataFrame:
    """FFF21 Table 2 (``ties="unq"``) / Table 3 (``"mid"``): overall τ between M and M_R.

    One row per :class:`RankedScores` (label ``T08_05``), one column per measure in the paper's order.
    τ = Kendall's τ_b between the system means of M and of M_R (§3.3, §7.1); ``decimals=8`` rounds
    the means first, as FFF21's footnote 9 does.
    """
    rows = {}
    for rs in results:
        if ties not in rs.ranked:
            raise ValueError(f"{rs.row}: ranked scores with ties={ties!r} were not computed")
        rows[rs.row] = {m: float(kendall_tau(_original_means(rs, m, decimals),
                                             system_means(rs.ranked[ties][m], decimals)))
                        for m in rs.measures}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "Track"
    return out[[m for m in PAPER_ORDER if m in out.columns] + [m for m in out.columns if m not in PAPER_ORDER]]


def table3(results: Iterable[RankedScores], decimals: int | None = None) -> pd.DataFrame:
    """FFF21 Table 3: :func:`table2` with mid-rank ties (§7.1.3)."""
    return table2(results, ties="mid", decimals=decimals)


def topic_by_topic_check(results: Iterable[RankedScores]) -> pd.DataFrame:
    """§7.1 sanity check: τ between M and M_R on each topic (expected 1.0: φ keeps the order of runs).

    One row per (track, measure, ties): topics where τ is defined (NaN when a measure ties all systems
    on a topic), the smallest and largest τ, and ``all_one``.
    """
    rows = []
    for rs in results:
        for t, ranked in rs.ranked.items():
            for m in rs.measures:
                tau = topic_by_topic_tau(rs.original[m], ranked[m])
                ok = ~np.isnan(tau)
                rows.append({"track": rs.row, "measure": m, "ties": t, "topics": len(tau),
                             "defined": int(ok.sum()), "min": float(tau[ok].min()) if ok.any() else np.nan,
                             "max": float(tau[ok].max()) if ok.any() else np.nan,
                             "all_one": bool(np.all(tau[ok] == 1.0))})
    return pd.DataFrame(rows)


# -------------------------------------------------------------------------------------- Table 4


def table4(rs: RankedScores, pairs: Sequence[tuple[str, str]] | None = None, ties: str = "unq",
           decimals: int | None = None) -> pd.DataFrame:
    """FFF21 Table 4 on one (track, N): for each pair (A, B), Msr = τ(mean A, mean B), RnkMsr = the
    same on the ranked versions, Δ% = (RnkMsr − Msr)/Msr · 100 (§7.2).

    ``pairs`` defaults to the paper's 55 rows (:data:`TABLE4_PAIRS`) restricted to computed measures.
    """
    have = set(rs.measures)
    pairs = [p for p in (TABLE4_PAIRS if pairs is None else pairs) if p[0] in have and p[1] in have]
    means = {m: _original_means(rs, m, decimals) for m in have}
    rmeans = {m: system_means(rs.ranked[ties][m], decimals) for m in have}
    rows = []
    for a, b in pairs:
        tau = float(kendall_tau(means[a], means[b]))
        rtau = float(kendall_tau(rmeans[a], rmeans[b]))
        rows.append({"Measure": f"{a} vs {b}", "Msr": tau, "RnkMsr": rtau,
                     "Delta%": (rtau - tau) / tau * 100 if tau else np.nan})
    return pd.DataFrame(rows).set_index("Measure")


# ---------------------------------------------------------------------------------- Tables 5–6


def _digest(a: np.ndarray) -> str:
    return hashlib.sha1(a.dtype.str.encode() + str(a.shape).encode() + np.ascontiguousarray(a).tobytes()).hexdigest()


#: Tukey-type procedures of :mod:`irscales.stats.significance` and the error df of their critical value.
_TUKEY_DF = {"anova1": lambda omni: omni["df"][1], "anova2": lambda omni: omni["df"][1],
             "kruskalwallis": lambda omni: math.inf, "friedman": lambda omni: math.inf}


def _with_critical(res: SG.SignificanceResult, critical: str) -> SG.SignificanceResult:
    """Re-decide the Tukey-type comparisons with the critical value of ``critical``
    (:func:`irscales.stats.anova.studentized_range_critical`); q statistics are unchanged."""
    if critical == "exact":
        return res
    out = {}
    for key, t in res.tests.items():
        if key in _TUKEY_DF:
            crit = studentized_range_critical(t.alpha, len(t.systems), _TUKEY_DF[key](t.omnibus), critical)
            q = np.asarray(t.statistic, dtype=float)
            t = replace(t, significant=np.where(np.isnan(q), False, q > crit),
                        omnibus={**t.omnibus, "q_critical": crit, "critical": critical})
        out[key] = t
    return SG.SignificanceResult(out)


def _tests_on(rs: RankedScores, scores: np.ndarray, tests: tuple[str, ...], alpha: float, cache: bool,
              critical: str = "exact"):
    # Ranked versions are shared (P_R = R_R, RBP_p03_R = RBP_p05_R, DCG_R = nDCG_R): test each once.
    key = (_digest(scores), tests, alpha, critical) if cache else None
    if key is not None and key in rs._sig_cache:
        return rs._sig_cache[key]
    res = SG.significance_tests(scores, tests=tests, alpha=alpha, systems=rs.systems, pvalues=False)
    res = _with_critical(res, critical)
    if key is not None:
        rs._sig_cache[key] = res
    return res


def table56(rs: RankedScores, measures: Sequence[str] | None = None, tests: Sequence[str] = SG.TESTS,
            alpha: float = 0.05, ties: str = "unq", critical: str = "exact") -> pd.DataFrame:
    """FFF21 Tables 5–6 on one (track, N): significance with M vs with M_R, for each measure and test.

    Columns: ``measure``, ``test``, ``label`` (the paper's row name), ``ordinal`` (grey rows),
    ``pairs`` (S(S−1)/2), ``sig`` (significant pairs with M), ``s2ns`` / ``ns2s`` (pairs that become
    not significant / significant with M_R), ``s2ns_ratio`` / ``ns2s_ratio`` (÷ Sig) and ``delta`` =
    (S2NS + NS2S)/Sig (fractions; NaN when Sig = 0), see :func:`irscales.stats.significance.compare_significance`.
    Table 5 is ``measures=RECALL_BASE_FREE``, Table 6 ``RECALL_BASE``.

    ``critical``: the studentized-range critical value of the four Tukey-type procedures,
    ``"exact"`` or ``"matlab"`` (MATLAB ``multcompare``, which FFF21 used: it treats an error df above
    120 as infinite, so for T08's 6,321 df its value is 0.063% smaller; see
    :func:`irscales.stats.anova.studentized_range_critical`). FFF21's one- and two-way ANOVA rows of T08
    need ``"matlab"``.
    """
    if critical not in CRITICAL_CONVENTIONS:
        raise ValueError(f"critical must be one of {CRITICAL_CONVENTIONS}, got {critical!r}")
    measures = [m for m in (rs.measures if measures is None else measures)]
    missing = [m for m in measures if m not in rs.original]
    if missing:
        raise ValueError(f"{rs.row}: measures {missing} were not computed")
    tests = tuple(tests)
    frames = []
    for m in measures:
        orig = _tests_on(rs, rs.original[m], tests, alpha, cache=False, critical=critical)
        rank = _tests_on(rs, rs.ranked[ties][m], tests, alpha, cache=True, critical=critical)
        f = SG.compare_significance(orig, rank).to_frame()
        f.insert(0, "measure", m)
        f.insert(0, "track", rs.row)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


def critical_value_flips(rs: RankedScores, measures: Sequence[str] | None = None,
                         tests: Sequence[str] = ("anova1", "anova2"), alpha: float = 0.05,
                         ties: str = "unq") -> pd.DataFrame:
    """The system pairs whose Tukey decision differs between the exact and MATLAB's critical value
    (:func:`irscales.stats.anova.studentized_range_critical`): one row per (measure, version, test, pair)
    with the studentized statistic q, both critical values and q's distance from each in percent.
    Versions: ``original`` (M) and ``ranked`` (M_R). The evidence behind ``critical="matlab"``."""
    measures = list(rs.measures if measures is None else measures)
    rows = []
    for m in measures:
        for version, scores in (("original", rs.original[m]), ("ranked", rs.ranked[ties][m])):
            res = SG.significance_tests(scores, tests=tuple(tests), alpha=alpha, systems=rs.systems, pvalues=False)
            for key, t in res.tests.items():
                df = _TUKEY_DF[key](t.omnibus)
                exact = studentized_range_critical(alpha, len(rs.systems), df, "exact")
                matlab = studentized_range_critical(alpha, len(rs.systems), df, "matlab")
                q = np.asarray(t.statistic, dtype=float)
                for k in np.nonzero((q > exact) != (q > matlab))[0]:
                    rows.append({"measure": m, "version": version, "test": key,
                                 "pair": f"{rs.systems[t.first[k]]} vs {rs.systems[t.second[k]]}", "q": q[k],
                                 "q_exact": exact, "q_matlab": matlab,
                                 "vs_exact_%": (q[k] / exact - 1) * 100, "vs_matlab_%": (q[k] / matlab - 1) * 100})
    return pd.DataFrame(rows, columns=["measure", "version", "test", "pair", "q", "q_exact", "q_matlab",
                                       "vs_exact_%", "vs_matlab_%"])


def grand_mean_delta(frames: Iterable[pd.DataFrame]) -> tuple[float, float]:
    """Grand mean and sample sd of Δ% (as fractions) over the rows of :func:`table56` frames: FFF21
    §7.3's "overall change Δ% around 25% ± 11%" across tracks, measures and tests (Sig = 0 left out)."""
    return SG.grand_mean_delta(SG.SignificanceChange(f) for f in frames)


# ------------------------------------------------------------------------------------ output


def save_table(frame: pd.DataFrame, table: str, track: str, simulated: bool, N: int | None = None,
               directory: Path | None = None) -> Path:
    """Write a table as CSV under ``figures/fff21/``: ``table2_T08.csv`` for TREC data,
    ``simulated_table2_sim-t08.csv`` for a simulated track (``_N30`` appended when ``N`` is given).
    Floats are written with 6 decimals so that files are stable across platforms."""
    name = f"{table}_{track.lower()}" + (f"_N{N}" if N is not None else "")
    if simulated:
        name = "simulated_" + name
    d = Path(directory) if directory else figures_dir("fff21")
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{name}.csv"
    frame.to_csv(path, float_format="%.6f")
    return path


def plot_significance_changes(frames: Sequence[pd.DataFrame], simulated: bool,
                              title: str | None = None) -> "matplotlib.figure.Figure":
    """Heat maps of S2NS and NS2S (% of Sig) by measure (columns) and test (rows), one column of panels
    per track: the changes of FFF21 Tables 5–6 at a glance. Returns the matplotlib Figure; the title
    says "simulated" when the data are. Grey labels mark the tests assuming only an ordinal scale."""
    import matplotlib.pyplot as plt

    if not frames:
        raise ValueError("plot_significance_changes: no table56 frames given")
    fig, axes = plt.subplots(2, len(frames), figsize=(4.6 * len(frames), 7.2), squeeze=False,
                             constrained_layout=True)
    vmax = max(100.0, max(float(np.nanmax(f[["s2ns_ratio", "ns2s_ratio"]].to_numpy(float)) * 100) for f in frames))
    im = None
    for j, f in enumerate(frames):
        measures = list(dict.fromkeys(f["measure"]))
        tests = list(dict.fromkeys(f["test"]))
        for i, (col, name) in enumerate((("s2ns", "S2NS"), ("ns2s", "NS2S"))):
            ax = axes[i, j]
            pct = f.pivot(index="test", columns="measure", values=f"{col}_ratio").loc[tests, measures] * 100
            cnt = f.pivot(index="test", columns="measure", values=col).loc[tests, measures]
            im = ax.imshow(pct.to_numpy(float), cmap="magma_r", vmin=0, vmax=vmax, aspect="auto")
            for (a, b), n in np.ndenumerate(cnt.to_numpy()):
                ax.text(b, a, str(int(n)), ha="center", va="center", fontsize=6,
                        color="white" if pct.iat[a, b] > vmax / 2 else "black")
            ax.set_xticks(range(len(measures)), measures, rotation=60, ha="right", fontsize=7)
            ax.set_yticks(range(len(tests)), [SG.TEST_LABELS[t] for t in tests], fontsize=7)
            for lab, t in zip(ax.get_yticklabels(), tests):
                if t in SG.ORDINAL_TESTS:
                    lab.set_color("grey")
            ax.set_title(f"{f['track'].iloc[0]}: {name} (count; colour = % of Sig)", fontsize=8)
    fig.colorbar(im, ax=axes, shrink=0.6, label="% of Sig")
    head = title or "Significance changes from M to its ranked version M_R (FFF21 Tables 5-6)"
    if simulated and "simulated" not in head.lower():
        head = "Simulated data: " + head
    fig.suptitle(head, fontsize=10)
    return fig


#: Orders of the double-precision sums tried for FFF21's AP scale (:func:`float_ap_taus`).
AP_FLOAT_ORDERS = ("sum_i(k_i/i) / RB", "sum_i(k_i/i / RB)", "sum_i(k_i / (i*RB))", "float32 sum_i(k_i/i) / RB")


def _float_ap(rel: np.ndarray, rb: int, order: str) -> np.ndarray:
    """AP of binary runs ``rel`` (n, N) in floating point, summed rank by rank in ``order``."""
    k = np.cumsum(rel, axis=1).astype(float)
    i = np.arange(1, rel.shape[1] + 1, dtype=float)
    dtype = np.float32 if order.startswith("float32") else np.float64
    acc = np.zeros(len(rel), dtype=dtype)
    for c in range(rel.shape[1]):
        term = {"sum_i(k_i/i / RB)": k[:, c] / i[c] / rb, "sum_i(k_i / (i*RB))": k[:, c] / (i[c] * rb)}.get(
            order, k[:, c] / i[c])
        acc = acc + np.where(rel[:, c] > 0, term, 0.0).astype(dtype)
    acc = acc.astype(float)
    return acc if order in ("sum_i(k_i/i / RB)", "sum_i(k_i / (i*RB))") else acc / rb


def float_ap_taus(collection: Collection, N: int, orders: Sequence[str] = AP_FLOAT_ORDERS) -> pd.DataFrame:
    """τ between (exact) AP and ranked AP (Tables 2–3) for several float scales: the per-topic scale
    of AP of all 2^N runs in double precision, ``unique`` over the floats (equal exact values split
    by an ulp), φ = number of distinct floats ≤ the run's float, one row per summation order of
    :data:`AP_FLOAT_ORDERS`; then the one float scale of SP (``ap="fff21-float"``), and first the
    exact scale (``unq`` and ``mid`` columns). N ≤ 20. The experiment of issue 15."""
    if N > 20:
        raise ValueError(f"float_ap_taus enumerates 2^N runs per topic; N = {N} is too large (N ≤ 20)")
    rs = ranked_scores(collection, N, measures=["AP"], track="x", ap="exact", progress=False)
    rel = collection.binary(N)
    ids = np.arange(2**N, dtype=np.int64)
    runs = ((ids[:, None] >> (N - 1 - np.arange(N))) & 1).astype(np.int8)
    means = _original_means(rs, "AP", None)
    rows = [{"scale": "exact (SP, integer keys)", "unq": float(kendall_tau(means, system_means(rs.ranked["unq"]["AP"]))),
             "mid": float(kendall_tau(means, system_means(rs.ranked["mid"]["AP"])))}]
    for order in orders:
        unq = np.zeros((len(rs.topics), len(rs.systems)))
        mid = np.zeros_like(unq)
        for t, rb in enumerate(collection.rb):
            all_ap = np.sort(_float_ap(runs, int(rb), order))
            ap = _float_ap(rel[:, t, :], int(rb), order)
            unq[t] = np.searchsorted(np.unique(all_ap), ap, side="right")
            mid[t] = (np.searchsorted(all_ap, ap, "left") + 1 + np.searchsorted(all_ap, ap, "right")) / 2
        rows.append({"scale": f"double, {order}", "unq": float(kendall_tau(means, system_means(unq))),
                     "mid": float(kendall_tau(means, system_means(mid)))})
    unq, mid = _float_sp_phi(rel)  # the convention that reproduces the paper: one float scale of SP
    rows.append({"scale": "double, scale of SP: sum_i(k_i/i), no ÷ RB (ap='fff21-float')",
                 "unq": float(kendall_tau(means, system_means(unq))), "mid": float(kendall_tau(means, system_means(mid)))})
    return pd.DataFrame(rows).set_index("scale")


_AP_NOTE = ("AP: FFF21 computed AP and its scale in double precision; ranked_scores(ap='fff21-float') "
            "reproduces it, the exact scale of SP (FFF21 eq. 2) gives this value (01b, 'Ranked AP and "
            "floating point'; issue 15)")
_TUKEY_NOTE = ("Tukey critical value: exact studentized range here; FFF21's MATLAB multcompare treats "
               "df > 120 as infinite (critical='matlab' reproduces it)")


def difference_notes(items: Iterable[str], critical: str = "exact", ap: str = "exact") -> dict[str, str]:
    """Known reasons why FFF21 items computed on real T08 runs differ from the printed value (issue 15),
    for the items of ``items`` in a known group: unless ``ap="fff21-float"``, AP (Tables 2–4, 6);
    unless ``critical="matlab"``, the one- and two-way ANOVA rows of Tables 5–6."""
    notes = {}
    for item in items:
        parts = item.split("/")
        if ap == "exact" and parts[0] in ("table2", "table3", "table6") and len(parts) > 2 and parts[2] == "AP":
            notes[item] = _AP_NOTE
        elif ap == "exact" and parts[0] == "table4" and "AP" in parts[2].split(" vs ") and parts[-1] != "Msr":
            notes[item] = _AP_NOTE
        elif parts[0] in ("table5", "table6") and critical == "exact" and parts[3] in (
                SG.TEST_LABELS["anova1"], SG.TEST_LABELS["anova2"]):
            notes[item] = _TUKEY_NOTE
    return notes


def published_items(t2: pd.DataFrame | None = None, t3: pd.DataFrame | None = None,
                    t4: Mapping[str, pd.DataFrame] | None = None,
                    t56: Iterable[pd.DataFrame] = (),
                    grand: tuple[float, float] | None = None, simulated: bool = False) -> dict[str, object]:
    """Reproduced values keyed by the items of ``data/published/fff21.csv`` (Tables 2–6 rows).

    Rows of real TREC tracks named like the paper's (``T08_30``) map to published items; values the
    paper does not print (Table 4 at N = 10, a track it did not use) are left out. ``t4`` maps a row
    label (``T08_30``) to its :func:`table4` frame. Ratios are given in percent, as printed.
    ``simulated=True`` maps the rows of simulated tracks instead (``sim-T26_30`` → the ``T26_30``
    items), for a comparison file whose route is ``"simulated"`` — never a reproduction.
    """
    from irscales.papers import published

    known = set(published.load("fff21")["item"])
    out: dict[str, object] = {}
    real = (lambda row: str(row).startswith("sim-") == simulated)
    for key, tab in (("table2", t2), ("table3", t3)):
        if tab is None:
            continue
        for row, vals in tab.iterrows():
            if real(row):
                for m, v in vals.items():
                    out[f"{key}/{row}/{m}"] = float(v)
    for row, tab in (t4 or {}).items():
        if real(row):
            for pair, vals in tab.iterrows():
                out[f"table4/{row}/{pair}/Msr"] = float(vals["Msr"])
                out[f"table4/{row}/{pair}/RnkMsr"] = float(vals["RnkMsr"])
                out[f"table4/{row}/{pair}/Delta%"] = f"{vals['Delta%']:+.2f}%"
    for f in t56:
        for r in f.itertuples(index=False):
            if not real(r.track):
                continue
            tab = "table5" if r.measure in RECALL_BASE_FREE else "table6"
            base = f"{tab}/{r.track}/{r.measure}/{r.label}"
            out[f"{base}/Sig"] = r.sig
            out[f"{base}/S2NS"] = r.s2ns
            out[f"{base}/NS2S"] = r.ns2s
            for col, v in (("S2NS%", r.s2ns_ratio), ("NS2S%", r.ns2s_ratio), ("Delta%", r.delta)):
                out[f"{base}/{col}"] = f"{v * 100:.2f}%" if v == v else "nan"
    if grand is not None:
        out["s7.3/grand_mean_delta/mean"] = f"{grand[0] * 100:.0f}%"
        out["s7.3/grand_mean_delta/sd"] = f"{grand[1] * 100:.0f}%"
    unsim = (lambda k: k.replace("/sim-", "/", 1)) if simulated else (lambda k: k)
    return {unsim(k): v for k, v in out.items() if unsim(k) in known}
