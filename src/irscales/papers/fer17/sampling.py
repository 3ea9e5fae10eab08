"""Sampling designs of correlation experiments, as Fer17 runs them: correlation among measures vs
topic and system sizes (RQ1, §4.1), removing the first quartile of systems (RQ2, §5.1), and corpus /
topic-set effects (RQ3, §6.1).

Input is a *score dictionary* ``name -> (T topics, S systems)`` array, one per measure, all on the
same topics and systems (:func:`irscales.papers.fer17.score_matrices` builds Fer17's); nothing here
depends on the paper beyond its default sizes. Output is a long
:class:`pandas.DataFrame`, one row per (sample, measure pair, design cell), with columns ``tau``
(Kendall's τ_b, Fer17 eq. 1) and ``tau_ap`` (τ_AP, eq. 2, the first measure of the pair as the
reference, as in Fer17 Tables 4 and 9) — ready for :func:`irscales.stats._anova.balanced_anova` with
``CROSSED_TERMS`` (RQ1) or ``NESTED_TERMS`` (RQ3).

RQ1 (§4.1): for each topic size t and system size s, draw H samples of t topics and, independently,
H samples of s systems (each without replacement); pair sample h of topics with sample h of
systems; rank the s systems by their mean over the t topics under every measure; correlate every
pair of rankings. The factor ``subject`` is the sample index h (Fer17's κ_i, DF = H − 1).

Ties are decided exactly where we can: systems are ranked by their *sum* over the sampled topics
(the same order as the mean, since every system has the same t topics). For measures listed in
:data:`INTEGER_SCALE` (P@10: hits/10) the sums are exact integers. For the other
measures the floats are summed in sorted order, so two systems with the same multiset of scores get
bit-identical sums and tie; different multisets are compared as floats, like Fer17's MATLAB code.
τ_AP is undefined with ties; we use its exact average over random tie-breakings
(:func:`irscales.correlation.tau_ap` with ``ties="average"``), Fer17 §2.2's ref. [71].

RQ2 (§5.1): the same samples, once with all s systems (``allQ``) and once without the first quartile
by MAP (``no1Q``). *Our reading*: in each sample, the ⌊s/4⌋ systems with the lowest MAP over the
sampled topics are removed (a fixed count keeps the design balanced; ties in MAP at the boundary are
broken by the random sample order). Requires ``"AP"`` among the measures.

RQ3 (§6.1): draw H samples of s = 100 systems once; evaluate each sample on every topic set (all its
topics), which are grouped in corpora; τ and τ_AP per (sample, pair, topic set).

Randomness comes only from the explicit :class:`numpy.random.Generator` passed in.
"""

from __future__ import annotations

import itertools
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from irscales.correlation import break_ties_by_order, kendall_counts, kendall_tau, tau_ap
from irscales._progress import iterate

__all__ = ["INTEGER_SCALE", "TOPIC_SIZES", "SYSTEM_SIZES", "N_SAMPLES", "measure_pairs", "draw_samples", "ranking_keys",
           "pair_correlations", "correlation_design", "rq3_design", "romp_comparison", "rq2_table",
           "pair_table"]

#: Fer17 §4.1 topic sizes T, system sizes S and number of samples H.
TOPIC_SIZES = (10, 20, 30, 40, 50, 60, 70)
SYSTEM_SIZES = (10, 20, 50, 75, 100, 125, 150, 200, 250, 500)
N_SAMPLES = 100

#: Measures (by key) whose per-topic values times this factor are integers: systems are ranked by
#: exact integer sums for them (P@10 = hits/10), so their ties are decided exactly.
INTEGER_SCALE: Mapping[str, int] = {"P@10": 10}

# Cap on the elements of one gathered (measures, samples, topics, systems) block (~64 MB of floats).
_BLOCK = 8_000_000


def measure_pairs(names: Sequence[str]) -> list[tuple[str, str]]:
    """All unordered pairs of measures in the given order: (m_A, m_B) with m_A before m_B."""
    return list(itertools.combinations(list(names), 2))


def _pair_label(a: str, b: str) -> str:
    return f"{a} vs {b}"


def _check_scores(scores: Mapping[str, np.ndarray]) -> tuple[list[str], np.ndarray]:
    names = list(scores)
    if len(names) < 2:
        raise ValueError(f"need at least two measures to correlate, got {names}")
    shapes = {np.shape(v) for v in scores.values()}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"every score matrix must be (T topics, S systems) and all the same shape; got "
                         f"{ {k: np.shape(v) for k, v in scores.items()} }")
    stack = np.stack([np.asarray(scores[n], dtype=float) for n in names])
    if not np.isfinite(stack).all():
        bad = [n for n in names if not np.isfinite(np.asarray(scores[n], float)).all()]
        raise ValueError(f"score matrices of {bad} have NaN or infinite values")
    return names, stack


def draw_samples(rng: np.random.Generator, population: int, size: int, n_samples: int) -> np.ndarray:
    """``n_samples`` independent samples of ``size`` distinct items out of ``population``: an int
    array ``(n_samples, size)``, each row uniform without replacement."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {type(rng).__name__}")
    if not 1 <= size <= population:
        raise ValueError(f"cannot draw {size} distinct items out of {population}")
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    # argsort of i.i.d. uniforms is a uniform random permutation per row
    return np.argsort(rng.random((n_samples, population)), axis=1)[:, :size]


def ranking_keys(stack: np.ndarray, names: Sequence[str], topics: np.ndarray, systems: np.ndarray) -> np.ndarray:
    """Ranking keys ``(m, H, s)``: each sampled system's sum over its sample's topics, per measure.

    ``stack``: ``(m, T, S)`` scores; ``topics``: ``(H, t)`` and ``systems``: ``(H, s)`` indices.
    The sum orders systems as the mean does (same t for all). Integer-valued measures
    (:data:`INTEGER_SCALE`) are summed as exact integers; floats in sorted order (see module docstring).
    """
    m, H = stack.shape[0], topics.shape[0]
    t, s = topics.shape[1], systems.shape[1]
    out = np.empty((m, H, s))
    step = max(1, _BLOCK // (m * t * s))
    scale = np.array([INTEGER_SCALE.get(n, 0) for n in names])
    for lo in range(0, H, step):
        sub = stack[:, topics[lo:lo + step, :, None], systems[lo:lo + step, None, :]]  # (m, h, t, s)
        for k in range(m):
            if scale[k]:
                scaled = sub[k] * scale[k]
                ints = np.rint(scaled)
                if np.abs(ints - scaled).max() > 1e-9:  # P@10 = hits/10: within float error of an integer
                    raise ValueError(f"{names[k]} scores times {scale[k]} are not integers")
                out[k, lo:lo + step] = ints.astype(np.int64).sum(axis=-2)
            else:
                out[k, lo:lo + step] = np.sort(sub[k], axis=-2).sum(axis=-2)
    return out


def pair_correlations(keys: np.ndarray, names: Sequence[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """τ and τ_AP of every measure pair on every sample: ``keys`` ``(m, H, s)`` →
    (pair labels, τ ``(P, H)``, τ_AP ``(P, H)``); τ_AP takes the first measure as reference."""
    pairs = measure_pairs(range(len(names)))
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    x, y = keys[a], keys[b]
    tau = np.asarray(kendall_tau(x, y))
    tap = np.asarray(tau_ap(x, y, ties="average"))
    return [_pair_label(names[i], names[j]) for i, j in pairs], tau, tap


def _frame(cols: dict[str, list]) -> pd.DataFrame:
    df = pd.DataFrame({k: np.concatenate(v) for k, v in cols.items()})
    for c in ("pair", "variant", "corpus", "topic_set"):
        if c in df:
            df[c] = pd.Categorical(df[c], categories=list(dict.fromkeys(df[c])))
    return df


def correlation_design(scores: Mapping[str, np.ndarray], rng: np.random.Generator,
                       topic_sizes: Sequence[int] = TOPIC_SIZES, system_sizes: Sequence[int] = SYSTEM_SIZES,
                       n_samples: int = N_SAMPLES, no1q: bool = False,
                       progress: bool | None = None) -> pd.DataFrame:
    """Fer17 §4.1 (RQ1) — and with ``no1q=True`` §5.1 (RQ2) — on a score dictionary.

    Returns columns ``subject`` (0..H−1), ``pair``, ``topics`` (t), ``systems`` (s), ``variant``
    (``allQ``; also ``no1Q`` rows when ``no1q``), ``tau``, ``tau_ap``: H × pairs × |T| × |S| rows per
    variant (196,000 for Fer17's 28 pairs; 147,000 for our 21).
    """
    names, stack = _check_scores(scores)
    _, T, S = stack.shape
    if no1q and "AP" not in names:
        raise ValueError("no1q=True removes the first quartile of systems by MAP, so 'AP' must be a measure")
    for what, sizes, n in (("topic", topic_sizes, T), ("system", system_sizes, S)):
        bad = [x for x in sizes if not 1 <= int(x) <= n]
        if bad:
            raise ValueError(f"{what} sizes {bad} are not between 1 and the {n} {what}s available")
    if no1q and min(system_sizes) < 4:
        raise ValueError("no1q needs at least 4 systems per sample to remove a quartile")
    cols: dict[str, list] = {k: [] for k in ("subject", "pair", "topics", "systems", "variant", "tau", "tau_ap")}
    cells = [(int(t), int(s)) for t in topic_sizes for s in system_sizes]
    ap = names.index("AP") if no1q else None
    for t, s in iterate(cells, len(cells), "Fer17 design cells", progress):
        tidx = draw_samples(rng, T, t, n_samples)
        sidx = draw_samples(rng, S, s, n_samples)
        keys = ranking_keys(stack, names, tidx, sidx)
        variants = [("allQ", keys)]
        if no1q:
            q = s // 4
            order = np.argsort(keys[ap], axis=-1, kind="stable")[:, q:]  # drop the q lowest MAP
            variants.append(("no1Q", np.take_along_axis(keys, order[None], axis=-1)))
        for label, k in variants:
            plabels, tau, tap = pair_correlations(k, names)
            P = len(plabels)
            cols["subject"].append(np.tile(np.arange(n_samples), P))
            cols["pair"].append(np.repeat(np.array(plabels, dtype=object), n_samples))
            cols["topics"].append(np.full(P * n_samples, t))
            cols["systems"].append(np.full(P * n_samples, s))
            cols["variant"].append(np.full(P * n_samples, label, dtype=object))
            cols["tau"].append(tau.ravel())
            cols["tau_ap"].append(tap.ravel())
    return _frame(cols)


def rq3_design(collections: Mapping[str, tuple[str, Mapping[str, np.ndarray]]], rng: np.random.Generator,
               n_systems: int = 100, n_samples: int = N_SAMPLES, progress: bool | None = None) -> pd.DataFrame:
    """Fer17 §6.1 (RQ3): ``collections`` maps a topic-set name to ``(corpus, score dictionary)``; all
    score dictionaries share the same systems (columns) and measures. The same H samples of
    ``n_systems`` systems are ranked on every topic set using all its topics.

    Returns columns ``subject``, ``pair``, ``corpus``, ``topic_set``, ``tau``, ``tau_ap``.
    """
    if not collections:
        raise ValueError("rq3_design needs at least one (corpus, scores) topic set")
    prepared = {}
    for ts, (corpus, scores) in collections.items():
        prepared[ts] = (corpus, *_check_scores(scores))
    n_sys = {v[2].shape[2] for v in prepared.values()}
    names0 = next(iter(prepared.values()))[1]
    if len(n_sys) != 1 or any(v[1] != names0 for v in prepared.values()):
        raise ValueError("every topic set must have the same measures and the same systems (columns)")
    S = n_sys.pop()
    sidx = draw_samples(rng, S, n_systems, n_samples)
    cols: dict[str, list] = {k: [] for k in ("subject", "pair", "corpus", "topic_set", "tau", "tau_ap")}
    for ts, (corpus, names, stack) in iterate(prepared.items(), len(prepared), "Fer17 RQ3 topic sets", progress):
        T = stack.shape[1]
        tidx = np.broadcast_to(np.arange(T), (n_samples, T))
        plabels, tau, tap = pair_correlations(ranking_keys(stack, names, tidx, sidx), names)
        n = len(plabels) * n_samples
        cols["subject"].append(np.tile(np.arange(n_samples), len(plabels)))
        cols["pair"].append(np.repeat(np.array(plabels, dtype=object), n_samples))
        cols["corpus"].append(np.full(n, corpus, dtype=object))
        cols["topic_set"].append(np.full(n, ts, dtype=object))
        cols["tau"].append(tau.ravel())
        cols["tau_ap"].append(tap.ravel())
    return _frame(cols)


def romp_comparison(x: pd.Series, y: pd.Series, ties: str = "order") -> dict[str, float]:
    """How close two sets of measure-pair correlations are (Fer17 §4.2.5, §5.1, §6.2.5):
    ``tauCorr`` = Kendall's τ and ``apCorr`` = τ_AP (``x`` as the reference) between the two
    Rankings of Measure Pairs (RoMP), ``swaps`` = the discordant pairs of the two RoMP, and ``RMSE``
    between the two curves each centred on its mean.

    ``ties="order"`` (default, Fer17's convention): each RoMP is a strict ranking, tied values
    ordered by their order of appearance in ``x``'s index, as a stable descending sort (MATLAB's
    ``sort``) leaves them; then tauCorr = 1 − 2·swaps/C(n, 2). It is the reading that reproduces
    the printed §4.2.5 and §6.2.5 values from Tables 4 and 9 (Table 4 has a τ_AP tie at 0.8125;
    breaking it the other way, or averaging over it, does not). ``ties="average"``: Kendall's τ_b
    and τ_AP averaged over random tie-breakings (``swaps`` then counts only pairs strictly
    discordant in both RoMP).
    """
    if ties not in ("order", "average"):
        raise ValueError(f"ties must be 'order' or 'average', got {ties!r}")
    if not x.index.equals(y.index):
        y = y.reindex(x.index)
    if y.isna().any():
        raise ValueError("the two series must hold the same measure pairs")
    if len(x) < 2:
        raise ValueError(f"comparing rankings of measure pairs needs at least 2 pairs, got {len(x)}")
    xv, yv = x.to_numpy(float), y.to_numpy(float)
    rmse = float(np.sqrt(np.mean(((xv - xv.mean()) - (yv - yv.mean())) ** 2)))
    if ties == "order":
        xv, yv = break_ties_by_order(xv), break_ties_by_order(yv)
        tau, ap = kendall_tau(xv, yv), tau_ap(xv, yv)
    else:
        tau, ap = kendall_tau(xv, yv), tau_ap(xv, yv, ties="average")
    swaps = int(kendall_counts(xv, yv).discordant)
    return {"tauCorr": float(tau), "apCorr": float(ap), "swaps": swaps, "RMSE": rmse}


def rq2_table(data: pd.DataFrame, response: str = "tau") -> pd.DataFrame:
    """Fer17 Tables 5–6: for every (topics, systems) cell, :func:`romp_comparison` of the allQ and
    no1Q mean correlations of the measure pairs (means over the H samples)."""
    need = {"variant", "pair", "topics", "systems", response}
    if not need <= set(data.columns) or set(data["variant"].unique()) != {"allQ", "no1Q"}:
        raise ValueError("rq2_table needs correlation_design(..., no1q=True) output")
    means = data.groupby(["topics", "systems", "variant", "pair"], observed=True)[response].mean()
    rows = []
    for (t, s), cell in means.groupby(level=["topics", "systems"]):
        c = cell.droplevel(["topics", "systems"])
        r = romp_comparison(c.loc["allQ"], c.loc["no1Q"])
        rows.append({"topics": t, "systems": s, **{k: r[k] for k in ("tauCorr", "apCorr", "RMSE")}})
    return pd.DataFrame(rows).set_index(["topics", "systems"])


def pair_table(effects: pd.Series, names: Sequence[str]) -> pd.DataFrame:
    """Upper-triangular table of measure-pair values like Fer17 Tables 4 and 9: rows the first
    measure (τ_AP's reference), columns the second; 1 on the diagonal, NaN below it."""
    out = pd.DataFrame(np.nan, index=list(names), columns=list(names))
    for a in names:
        out.loc[a, a] = 1.0
    for (a, b) in measure_pairs(names):
        lab = _pair_label(a, b)
        if lab in effects.index:
            out.loc[a, b] = float(effects[lab])
    return out
