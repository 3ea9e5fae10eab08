"""Measures against their ranked ("interval-scaled") versions on runs: FFF21 Tables 2–6 (§6–7).

For a :class:`~irscales.collections.Collection` cut at run length N, :func:`ranked_scores` computes
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
  :mod:`irscales.significance`: Sig, S2NS, NS2S, their ratios to Sig and Δ% = (S2NS + NS2S)/Sig;
  Table 5 = measures not depending on the recall base, Table 6 = the others;
  :func:`grand_mean_delta` — the "25% ± 11%" of §7.3 (mean ± sample sd of Δ% over tracks,
  measures and tests; tests with Sig = 0 left out).

Exactness: overall τ compares system means, and ties among means decide τ. Rational measures (P, R,
AP, RR, RBP) are evaluated as :class:`fractions.Fraction` (``Measure.exact``), and so are DCG and
nDCG when N ≤ their log base (every discount is 1: DCG = #relevant, nDCG = #relevant/min(RB, N));
so their means are exact; ranked values are integers (``unq``) or half-integers (``mid``), whose float sums over ≤ 2^20
topics are exact. DCG and nDCG are irrational; their floats are *snapped*: every run with the same
exact value (same φ, decided exactly by the engine) gets one float, and a check asserts that distinct
values keep distinct, correctly ordered floats (:func:`_snap`). Their system means are guarded
(:func:`_means`): a near tie between means that is not provably exact raises instead of being
decided by rounding. nDCG values of different topics are compared as floats (as FFF21 does; its
option of rounding means to 8 decimals is ``decimals=8``). The significance tests receive the same
arrays (:mod:`irscales.significance` decides ties between scores on exact order codes).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from . import counting
from . import enumeration as E
from . import measures as M
from . import significance as SG
from .collections import Collection
from .correlation import kendall_tau, system_means, topic_by_topic_tau
from .paths import figures_dir

if TYPE_CHECKING:
    import matplotlib.figure

__all__ = [
    "PAPER_ORDER", "RECALL_BASE_FREE", "RECALL_BASE", "TIES", "TABLE4_PAIRS", "RankedScores",
    "ranked_scores", "track_name", "table2", "table3", "topic_by_topic_check", "table4", "table56",
    "grand_mean_delta", "save_table", "published_items", "plot_significance_changes",
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
    _sig_cache: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def row(self) -> str:
        """Row label as in FFF21 Tables 2–3: ``T08_05`` (``sim-T08_05`` when simulated)."""
        return f"{self.track}_{self.N:02d}"

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(self.original)


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
                  ties: Sequence[str] = TIES, track: str | None = None, **scale_kwargs) -> RankedScores:
    """The measures and their ranked versions on ``collection`` cut at run length ``N``.

    measures      names of FFF21 measures (keys of :data:`irscales.measures.FFF21_MEASURES`)
    ties          ``"unq"`` (FFF21 eq. 2) and/or ``"mid"`` (mid-rank, §7.1.3)
    track         row prefix (default: :func:`track_name`)
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
    for name in measures:
        m = M.FFF21_MEASURES[name]
        sname = _SCALE_OF.get(name, name)
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
            original[name] = collection.evaluate(m, depth=N, exact=True).T
            continue
        vals = np.asarray(collection.evaluate(m, depth=N), dtype=float).T  # (T, S)
        if isinstance(m, M.DCG) and m.discount == "jk" and m.gains == "binary" and N <= m.base:
            # ranks 1..base all weigh 1: DCG = #relevant and nDCG = #relevant / min(RB, N), rational
            original[name] = _exact_small_dcg(rel, rb, N, name, vals)
            continue
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
                        ranked=ranked, min_rb=int(rb.min(initial=0)))


# ----------------------------------------------------------------------------------- Tables 2–3


def _means(scores: np.ndarray, decimals: int | None, what: str) -> np.ndarray:
    """System means (FFF21 §3.3), with a guard that makes float means safe to compare exactly.

    Fractions and integers give exact means. For float (DCG, nDCG) scores, two means closer than
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
        rows[rs.row] = {m: float(kendall_tau(_means(rs.original[m], decimals, f"{rs.row} {m}"),
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
    means = {m: _means(rs.original[m], decimals, f"{rs.row} {m}") for m in have}
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


def _tests_on(rs: RankedScores, scores: np.ndarray, tests: tuple[str, ...], alpha: float, cache: bool):
    # Ranked versions are shared (P_R = R_R, RBP_p03_R = RBP_p05_R, DCG_R = nDCG_R): test each once.
    key = (_digest(scores), tests, alpha) if cache else None
    if key is not None and key in rs._sig_cache:
        return rs._sig_cache[key]
    res = SG.significance_tests(scores, tests=tests, alpha=alpha, systems=rs.systems, pvalues=False)
    if key is not None:
        rs._sig_cache[key] = res
    return res


def table56(rs: RankedScores, measures: Sequence[str] | None = None, tests: Sequence[str] = SG.TESTS,
            alpha: float = 0.05, ties: str = "unq") -> pd.DataFrame:
    """FFF21 Tables 5–6 on one (track, N): significance with M vs with M_R, for each measure and test.

    Columns: ``measure``, ``test``, ``label`` (the paper's row name), ``ordinal`` (grey rows),
    ``pairs`` (S(S−1)/2), ``sig`` (significant pairs with M), ``s2ns`` / ``ns2s`` (pairs that become
    not significant / significant with M_R), ``s2ns_ratio`` / ``ns2s_ratio`` (÷ Sig) and ``delta`` =
    (S2NS + NS2S)/Sig (fractions; NaN when Sig = 0), see :func:`irscales.significance.compare_significance`.
    Table 5 is ``measures=RECALL_BASE_FREE``, Table 6 ``RECALL_BASE``.
    """
    measures = [m for m in (rs.measures if measures is None else measures)]
    missing = [m for m in measures if m not in rs.original]
    if missing:
        raise ValueError(f"{rs.row}: measures {missing} were not computed")
    tests = tuple(tests)
    frames = []
    for m in measures:
        orig = _tests_on(rs, rs.original[m], tests, alpha, cache=False)
        rank = _tests_on(rs, rs.ranked[ties][m], tests, alpha, cache=True)
        f = SG.compare_significance(orig, rank).to_frame()
        f.insert(0, "measure", m)
        f.insert(0, "track", rs.row)
        frames.append(f)
    return pd.concat(frames, ignore_index=True)


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


def published_items(t2: pd.DataFrame | None = None, t3: pd.DataFrame | None = None,
                    t4: Mapping[str, pd.DataFrame] | None = None,
                    t56: Iterable[pd.DataFrame] = (),
                    grand: tuple[float, float] | None = None) -> dict[str, object]:
    """Reproduced values keyed by the items of ``data/published/fff21.csv`` (Tables 2–6 rows).

    Only rows of real TREC tracks named like the paper's (``T08_30``) map to published items; rows
    of simulated tracks (``sim-…``) are never compared with the paper, and values the paper does not
    print (Table 4 at N = 10, a track it did not use) are left out. ``t4`` maps a row label
    (``T08_30``) to its :func:`table4` frame. Ratios are given in percent, as printed.
    """
    from . import published

    known = set(published.load("fff21")["item"])
    out: dict[str, object] = {}
    real = (lambda row: not str(row).startswith("sim-"))
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
                out[f"table4/{row}/{pair}/Msr"] = vals["Msr"]
                out[f"table4/{row}/{pair}/RnkMsr"] = vals["RnkMsr"]
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
    return {k: v for k, v in out.items() if k in known}
