"""FFF21 Tables 5–6 (§7.3): significance with a measure M against its ranked version M_R.

* :func:`table56` — for each measure and each of the eight tests of :mod:`irscales.stats._significance`:
  Sig, S2NS, NS2S, their ratios to Sig and Δ% = (S2NS + NS2S)/Sig; Table 5 = measures not depending on
  the recall base, Table 6 = the others; :func:`table56_layout` shows them as printed.
* :func:`grand_mean_delta` — the "25% ± 11%" of §7.3 (mean ± sample sd of Δ% over tracks, measures
  and tests; tests with Sig = 0 left out); :func:`significance_summary` the notebook's summary lines.
* :func:`critical_value_flips` — the pairs whose Tukey decision depends on the critical value
  (``critical="matlab"``: MATLAB's, which ignores error df above 120).
* :func:`plot_significance_changes` — heat maps of S2NS and NS2S.
"""
from __future__ import annotations

import hashlib
import math
import textwrap
from dataclasses import replace
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from irscales.papers.fff21.ranked import RECALL_BASE, RECALL_BASE_FREE, RankedScores
from irscales.stats import _significance as SG
from irscales.stats._anova import CRITICAL_CONVENTIONS, studentized_range_critical
from irscales.options import DEFAULT_TIES

if TYPE_CHECKING:
    import matplotlib.figure

__all__ = ["table56", "with_critical", "critical_value_flips", "grand_mean_delta", "table56_layout",
           "significance_summary", "plot_significance_changes"]


def _digest(a: np.ndarray) -> str:
    return hashlib.sha1(a.dtype.str.encode() + str(a.shape).encode() + np.ascontiguousarray(a).tobytes()).hexdigest()


#: Tukey-type procedures of :mod:`irscales.stats._significance` and the error df of their critical value.
_TUKEY_DF = {"anova1": lambda omni: omni["df"][1], "anova2": lambda omni: omni["df"][1],
             "kruskalwallis": lambda omni: math.inf, "friedman": lambda omni: math.inf}


def with_critical(res: SG.SignificanceResult, critical: str) -> SG.SignificanceResult:
    """Re-decide the Tukey-type comparisons with the critical value of ``critical``
    (:func:`irscales.stats._anova.studentized_range_critical`); q statistics are unchanged."""
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
    if key is not None and key in rs.sig_cache:
        return rs.sig_cache[key]
    res = SG.significance_tests(scores, tests=tests, alpha=alpha, systems=rs.systems, pvalues=False)
    res = with_critical(res, critical)
    if key is not None:
        rs.sig_cache[key] = res
    return res


def table56(rs: RankedScores, measures: Sequence[str] | None = None, tests: Sequence[str] = SG.TESTS,
            alpha: float = 0.05, ties: str = DEFAULT_TIES, critical: str = "exact") -> pd.DataFrame:
    """FFF21 Tables 5–6 on one (track, N): significance with M vs with M_R, for each measure and test.

    Columns: ``measure``, ``test``, ``label`` (the paper's row name), ``ordinal`` (grey rows),
    ``pairs`` (S(S−1)/2), ``sig`` (significant pairs with M), ``s2ns`` / ``ns2s`` (pairs that become
    not significant / significant with M_R), ``s2ns_ratio`` / ``ns2s_ratio`` (÷ Sig) and ``delta`` =
    (S2NS + NS2S)/Sig (fractions; NaN when Sig = 0), see :func:`irscales.stats._significance.compare_significance`.
    Table 5 is ``measures=RECALL_BASE_FREE``, Table 6 ``RECALL_BASE``.

    ``critical``: the studentized-range critical value of the four Tukey-type procedures,
    ``"exact"`` or ``"matlab"`` (MATLAB ``multcompare``, which FFF21 used: it treats an error df above
    120 as infinite, so for T08's 6,321 df its value is 0.063% smaller; see
    :func:`irscales.stats._anova.studentized_range_critical`). FFF21's one- and two-way ANOVA rows of T08
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
                         ties: str = DEFAULT_TIES) -> pd.DataFrame:
    """The system pairs whose Tukey decision differs between the exact and MATLAB's critical value
    (:func:`irscales.stats._anova.studentized_range_critical`): one row per (measure, version, test, pair)
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


#: Colour map of :func:`plot_significance_changes` (light to dark; its palest tenth is left out so that a
#: small change stays distinguishable from the white of "no change").
_CHANGE_CMAP = "YlGnBu"


def _change_norm(pct: np.ndarray):
    """Colour scale of :func:`plot_significance_changes`: logarithmic from 1 % to the largest change
    (at least 100 %), so a single outlier (FFF21 T08's NS2S of R under one-way ANOVA, ~370 % of Sig)
    cannot flatten the others; changes under 1 % take the palest colour."""
    from matplotlib.colors import LogNorm

    top = float(np.nanmax(pct, initial=0.0))
    return LogNorm(vmin=1.0, vmax=max(100.0, top), clip=True)


def plot_significance_changes(frames: Sequence[pd.DataFrame], simulated: bool,
                              title: str | None = None, note: str = "") -> "matplotlib.figure.Figure":
    """Heat maps of FFF21 Tables 5–6's changes from M to M_R: one row of panels per track (S2NS left,
    NS2S right), measures as columns, the eight tests as rows. A cell prints the number of system pairs
    that change; its colour is that number as a percentage of Sig (pairs significant with M) on a log
    scale (:func:`_change_norm`); white: no change; hatched grey: Sig = 0 (no percentage). Test names
    in grey are the tests that assume only an ordinal scale (:data:`irscales.stats._results.ORDINAL_TESTS`,
    the grey rows of FFF21 Tables 5–6); the caption under the panels says so. Cell numbers are 8 pt.
    ``note``: one more caption line (e.g. on what the data are or how exact the cells are).
    Returns the matplotlib Figure; its title and caption say "simulated" when the data are."""
    import matplotlib.pyplot as plt
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    if not frames:
        raise ValueError("plot_significance_changes: no table56 frames given")
    tests0, measures0 = list(dict.fromkeys(frames[0]["test"])), list(dict.fromkeys(frames[0]["measure"]))
    same_tests = all(list(dict.fromkeys(f["test"])) == tests0 for f in frames)
    same_measures = all(list(dict.fromkeys(f["measure"])) == measures0 for f in frames)
    n_meas = max(len(set(f["measure"])) for f in frames)
    n_tests = max(len(set(f["test"])) for f in frames)
    cell_w, cell_h = 0.42, 0.3  # inches: room for a 4-digit count at 8 pt
    fig, axes = plt.subplots(len(frames), 2, squeeze=False, constrained_layout=True,
                             figsize=(2 * max(cell_w * n_meas, 3.2) + 3.4, len(frames) * (cell_h * n_tests + 1.5) + 1.2))
    pct_all = np.concatenate([f[["s2ns_ratio", "ns2s_ratio"]].to_numpy(float).ravel() * 100 for f in frames])
    norm = _change_norm(pct_all)
    base = colormaps[_CHANGE_CMAP]
    cmap = ListedColormap(base(np.linspace(0.12, 1.0, 256))).with_extremes(bad="white")
    im, has_nan = None, False
    for i, f in enumerate(frames):
        measures = list(dict.fromkeys(f["measure"]))
        tests = list(dict.fromkeys(f["test"]))
        for j, (col, name, what) in enumerate((("s2ns", "S2NS", "significant with M, not with M_R"),
                                               ("ns2s", "NS2S", "not significant with M, significant with M_R"))):
            ax = axes[i, j]
            pct = f.pivot(index="test", columns="measure", values=f"{col}_ratio").loc[tests, measures].to_numpy(float) * 100
            cnt = f.pivot(index="test", columns="measure", values=col).loc[tests, measures].to_numpy()
            shown = np.ma.masked_where(~(pct > 0), pct)  # 0 and NaN: no colour
            im = ax.imshow(shown, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
            for (a, b), n in np.ndenumerate(cnt):
                if np.isnan(pct[a, b]):
                    has_nan = True
                    ax.add_patch(plt.Rectangle((b - 0.5, a - 0.5), 1, 1, fc="0.85", ec="0.6", hatch="///", lw=0))
                dark = pct[a, b] > 0 and norm(pct[a, b]) > 0.55
                ax.text(b, a, str(int(n)), ha="center", va="center", fontsize=8,
                        color="white" if dark else ("0.45" if n == 0 else "black"))
            last = i == len(frames) - 1 or not same_measures  # measure names under the bottom row only
            ax.set_xticks(range(len(measures)), measures if last else [""] * len(measures), rotation=90, fontsize=8)
            ax.set_xticks(np.arange(len(measures) + 1) - 0.5, minor=True)
            ax.set_yticks(np.arange(len(tests) + 1) - 0.5, minor=True)
            ax.grid(False)
            ax.grid(True, which="minor", color="white", lw=0.8)
            ax.tick_params(which="minor", length=0)
            if j == 0 or not same_tests:
                ax.set_yticks(range(len(tests)), [SG.TEST_LABELS[t] for t in tests], fontsize=8)
                for lab, t in zip(ax.get_yticklabels(), tests):
                    if t in SG.ORDINAL_TESTS:
                        lab.set_color("0.5")
            else:
                ax.set_yticks(range(len(tests)), [""] * len(tests))
            ax.set_title(f"{f['track'].iloc[0]}: {name}\n{what}", fontsize=9)
    ticks = [t for t in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if t <= norm.vmax]
    cb = fig.colorbar(im, ax=axes, shrink=0.75 / len(frames) ** 0.5, aspect=20, extend="min",
                      ticks=ticks, format="{x:g} %")
    cb.set_label("changed pairs as % of Sig (log scale)", fontsize=8)
    cb.ax.tick_params(labelsize=8)
    head = title or "Significance changes from M to its ranked version M_R (FFF21 Tables 5-6)"
    if simulated and "simulated" not in head.lower():
        head = "Simulated data: " + head
    fig.suptitle(head, fontsize=10)
    caption = ["Cell: number of system pairs whose decision changes; colour: that number as % of Sig (pairs"
               " significant with M), log scale, under 1 % palest; white: no change."
               + (" Hatched grey: Sig = 0 (no percentage)." if has_nan else ""),
               "Test names in grey: tests that assume only an ordinal scale (FFF21's grey rows);"
               " in black: tests that assume an interval scale." + (" Simulated data, not TREC runs." if simulated else "")]
    if note:
        caption.append(note)
    width = int(fig.get_figwidth() * 17)  # characters of 8 pt text per line across the figure
    fig.supxlabel("\n".join(textwrap.fill(c, width) for c in caption), fontsize=8, color="0.2")
    return fig


def table56_layout(t56: Mapping[str, pd.DataFrame], measures: Sequence[str]) -> pd.DataFrame:
    """Tables 5/6 as printed: one block of rows per measure, Sig / S2NS (%) / NS2S (%) / Δ% per track
    (``t56`` maps a track to its :func:`table56` frame)."""
    cols, g = {}, None
    for f in t56.values():
        g = f[f.measure.isin(measures)].set_index(["measure", "label"])
        row = f["track"].iloc[0]
        cols[(row, "Sig")] = g["sig"]
        cols[(row, "S2NS (%)")] = [f"{a} ({r:.2%})" if r == r else f"{a} (-)" for a, r in zip(g["s2ns"], g["s2ns_ratio"])]
        cols[(row, "NS2S (%)")] = [f"{a} ({r:.2%})" if r == r else f"{a} (-)" for a, r in zip(g["ns2s"], g["ns2s_ratio"])]
        cols[(row, "Δ%")] = [f"{d:.2%}" if d == d else "-" for d in g["delta"]]
    return pd.DataFrame(cols, index=g.index if g is not None else None)


def significance_summary(t56: Mapping[str, pd.DataFrame]) -> Iterator[str]:
    """The lines summarising Tables 5–6 over all tracks (FFF21 §7.3): the grand mean Δ%, mean S2NS and
    NS2S by recall-base dependence and test kind, and the invariances the paper notes."""
    all56 = pd.concat(t56.values(), ignore_index=True)
    mean, sd = grand_mean_delta(t56.values())
    yield f"grand mean Δ% over tracks, measures and tests: {mean:.0%} ± {sd:.0%} (n = {all56.delta.notna().sum()})"
    for rb, ms in (("not depending on the recall base", RECALL_BASE_FREE), ("depending on the recall base", RECALL_BASE)):
        for kind, ordinal in (("ordinal", True), ("interval", False)):
            g = all56[all56.measure.isin(ms) & (all56.ordinal == ordinal)]
            yield f"  {rb:34s} {kind:8s} tests: mean S2NS {g.s2ns_ratio.mean():6.1%}, mean NS2S {g.ns2s_ratio.mean():6.1%}"
    inv = all56[all56.measure.isin(["P", "RBP_p05"])]
    yield f"P and RBP_p05: S2NS = NS2S = 0 in every test: {bool((inv.s2ns == 0).all() and (inv.ns2s == 0).all())}"
    free_ord = all56[all56.measure.isin(RECALL_BASE_FREE) & all56.ordinal]
    yield f"recall-base-free measures, ordinal tests unchanged: {bool((free_ord.s2ns + free_ord.ns2s == 0).all())}"
