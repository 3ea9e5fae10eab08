"""A comparison table of many runs worth pasting into a paper: systems × measures, the original and the
interval-scaled means side by side, paired tests with a multiple-comparison correction, significance
markers on each scale, MM23's † / ‡ against a baseline, and a flag wherever the two scales lead to
different conclusions (FFF21's argument: conclusions should be drawn on an interval scale).

What a cell says (:attr:`ComparisonTable.legend` says it in every rendering):

* ``0.2513 ᵃᶜ`` — the system's mean over topics, significantly better than systems ``a`` and ``c`` (its
  markers: letters up to 26 systems, numbers 1 … S beyond, ``1,3–5``), on that scale; the best mean of a
  column is bold in Markdown and LaTeX. *Better* is the sign of the exact mean difference; *significantly*
  is the paired test's decision after the correction over the family of comparisons of that measure and scale
  (every pair of systems; with a baseline only the baseline's pairs).
* ``†`` — significantly different from the baseline, in the direction of the mean (MM23 §3's metric
  test); ``‡`` — and the IPSO sign test (MM23 §3) agrees, over the same correction. IPSO does not depend
  on the measure: its counts are the same on both scales, but ``‡`` is only given with a ``†``.
* ``≠`` — the conclusions differ: the system's letters (or its †) on the interval scale are not those on
  the original scale.
* ``?b`` — only where the interval-scaled values are bracketed (φ known within a proven bound, not exactly):
  significantly better than ``b`` at some values inside the brackets but not at all of them — the decision is
  **undecided**. Every other decision on bracketed values is **proven**: it holds for every value in every
  bracket (:mod:`irscales.stats.proven`: the tests and the correction decided on sound outer bounds of their
  statistics over the box of values; issue 51). Letters and † on such a column are proven decisions only
  (``†?``: the decision against the baseline is undecided); ≠ compares proven decisions only.

Tests (:data:`TESTS`): the paired ``t`` test (default), ``wilcoxon`` signed-rank, ``sign`` test, the paired
``randomisation`` test (Smucker, Allan and Carterette 2007; :mod:`irscales.stats._randomisation`) (each
with ``correction`` ``holm`` (default), ``bonferroni`` or ``none``), and ``tukey``: FFF21's two-way ANOVA
(topic + system) followed by Tukey's HSD, which controls the family-wise error itself (no correction).
All run on :mod:`irscales.stats._significance`, on exact values where the scores are exact.

Every pair's numbers — raw and adjusted p-values, the mean difference and Cohen's d_z (the mean of the
paired differences over their standard deviation, ddof = 1), on both scales, with their ranges over the
brackets and whether the decision is proven — are in :meth:`ComparisonTable.pairs_frame` (counts:
:meth:`ComparisonTable.decision_counts`); :meth:`ComparisonTable.to_csv` is one row per system (no legend:
:attr:`ComparisonTable.legend` apart). Renderings: :mod:`irscales.comparison._render`.

Scores are ``(T topics, S systems)`` matrices, the orientation of every score matrix in irscales.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats

from irscales.comparison import _plot, _render as R
from irscales.certified import Bounds, ScoreBox, mean_bounds
from irscales.correlation import system_means
from irscales.interval import INTERVAL_LEGEND
from irscales.ipso._sign_test import ipso_sign_test
from irscales.options import (COMPARISON_DEFAULTS, COMPARISON_TESTS, CORRECTIONS, ROW_ORDERS, TEST_WORDS, ArgumentError,
                              check_alpha, check_choice)
from irscales.stats import _significance as S
from irscales.stats.proven import outcomes, proven_corrected, proven_test
from irscales.stats._randomisation import PERMUTATIONS, randomisation_test

__all__ = ["ComparisonTable", "comparison_table", "corrected", "PROVEN", "UNDECIDED"]

#: Test name → the key of :data:`irscales.stats._significance.TESTS` that runs it (:mod:`irscales.options`).
TESTS = COMPARISON_TESTS
#: Row orders: ``given``; ``mean``: decreasing mean of the first measure on its original scale (ties in the
#: order given); ``auto``: ``given`` up to 26 systems, ``mean`` beyond (numbered markers then mostly form
#: one range: a system tends to beat the systems below it).
ORDERS = ROW_ORDERS
#: The two values of the ``proven`` column of :meth:`ComparisonTable.pairs_frame`.
PROVEN, UNDECIDED = "proven", "undecided"
#: The mark of an undecided decision in a cell (before the markers of the systems concerned).
UNDECIDED_MARK = "?"


def corrected(p: np.ndarray, alpha: float, method: str) -> tuple[np.ndarray, np.ndarray]:
    """Adjusted p-values and decisions ``p_adj ≤ α`` over one family (``p``: one per comparison).

    ``bonferroni``: p·m (capped at 1). ``holm`` (Holm 1979, step-down): with p sorted ascending,
    p_adj(k) = max_{j ≤ k} min(1, (m − j + 1)·p(j)); it rejects exactly the hypotheses Holm's procedure
    rejects at α. ``none``: p itself. NaN p-values (an undefined test) are never significant and do not
    count in m.
    """
    if method not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(CORRECTIONS)}, got {method!r}")
    p = np.asarray(p, dtype=float)
    ok = ~np.isnan(p)
    adj = np.full(p.shape, np.nan)
    m = int(ok.sum())
    if method == "none":
        adj[ok] = p[ok]
    elif method == "bonferroni":
        adj[ok] = np.minimum(1.0, p[ok] * m)
    else:
        idx = np.flatnonzero(ok)
        order = idx[np.argsort(p[idx], kind="stable")]
        steps = np.minimum(1.0, (m - np.arange(m)) * p[order])
        adj[order] = np.maximum.accumulate(steps)
    return adj, np.where(ok, adj <= alpha, False)


@dataclass(frozen=True, kw_only=True)
class ComparisonTable:
    """The result of :func:`comparison_table`; ``frame`` is tidy (one row per system × measure × scale)."""

    frame: pd.DataFrame
    pairs: pd.DataFrame
    systems: tuple[str, ...]
    measures: tuple[str, ...]
    letters: tuple[str, ...]
    test: str
    correction: str
    alpha: float
    baseline: str | None
    n_topics: int
    depth: int | None
    notes: tuple[str, ...] = field(default=())
    test_detail: str = ""
    bracketed: tuple[str, ...] = field(default=())  # measures whose interval scale was decided over brackets

    # ----------------------------------------------------------------------------------- legend
    @property
    def legend(self) -> str:
        """What every mark means, in words (printed under every rendering; :meth:`legend_for`)."""
        return self.legend_for(bold_shown=False)

    def legend_for(self, bold_shown: bool) -> str:
        """The legend of a rendering that shows the best means in bold (``bold_shown``: Markdown, LaTeX) or
        not (text; the legend then says where bold is shown)."""
        fam = (f"the {len(self.systems) - 1} comparisons with the baseline {self.baseline}" if self.baseline
               else f"the {len(self.systems) * (len(self.systems) - 1) // 2} pairs of systems")
        name = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "no"}[self.correction]
        corr = "" if self.test == "tukey" else f", {name} correction over {fam} of each measure and scale"
        depth = f" of runs cut at depth {self.depth}" if self.depth is not None else ""
        marks = ("Letters: significantly better than the systems with those letters" if len(self.systems)
                 <= R.LETTERS_UP_TO else "Numbers: significantly better than the systems with those numbers "
                 "(3–5: systems 3, 4 and 5)")
        detail = f"; {self.test_detail}" if self.test_detail else ""
        bold = "bold" if bold_shown else "bold (Markdown, LaTeX)"
        lines = [f"Means over {self.n_topics} topics{depth}; {bold}: the best mean of each column. "
                 f"{marks} ({TEST_WORDS[self.test]}{detail}{corr}, alpha = {self.alpha}).",
                 INTERVAL_LEGEND + ".",
                 "≠: the conclusions (markers, or † against the baseline) differ between the original and the "
                 "interval scale."]
        if self.baseline:
            lines.insert(2, f"†: significantly different from the baseline {self.baseline}; ‡: and the IPSO sign "
                            "test agrees, its majority the way of the means (MM23 §3).")
        if self.bracketed:
            lines.append(self.undecided_line())
        return "\n".join(lines + list(self.notes))

    def undecided_line(self) -> str:
        """The legend's line on bracketed values: what is proven, what ``?`` marks, and the counts."""
        c = self.decision_counts().set_index(["measure", "scale"])
        counts = "; ".join(f"{m} (interval): {int(c.loc[(m, 'interval'), 'undecided'])} of "
                           f"{int(c.loc[(m, 'interval'), 'pairs'])} undecided" for m in self.bracketed)
        base = ", and †? against the baseline" if self.baseline else ""
        return (f"Bracketed interval values: a decision is proven if it holds for every value inside the brackets, "
                f"else undecided; letters{' and †' if self.baseline else ''} show proven decisions, "
                f"{UNDECIDED_MARK}b marks a system significantly better than b for some values only{base} "
                f"({counts}).")

    def decision_counts(self) -> pd.DataFrame:
        """Per measure and scale: the pairs tested, how many are proven significant, proven not significant and
        undecided (only bracketed interval values have undecided decisions; exact ones are proven as computed)."""
        p = self.pairs
        rows = []
        for (m, scale), g in p.groupby(["measure", "scale"], sort=False):
            proven = g["proven"] == PROVEN
            rows.append({"measure": m, "scale": scale, "bracketed": scale == "interval" and m in self.bracketed,
                         "pairs": len(g), "proven_significant": int((proven & g["significant"]).sum()),
                         "proven_not_significant": int((proven & ~g["significant"]).sum()),
                         "undecided": int((~proven).sum())})
        return pd.DataFrame(rows, columns=["measure", "scale", "bracketed", "pairs", "proven_significant",
                                           "proven_not_significant", "undecided"])

    # ---------------------------------------------------------------------------------- renders
    def cells(self, style: str = "text") -> pd.DataFrame:
        """The table as strings: one row per system (with its marker), one column per measure and scale
        (``M`` and ``M (interval)``). ``style``: ``text`` (Unicode), ``markdown`` or ``latex``."""
        return R.cells(self, style)

    def to_frame(self) -> pd.DataFrame:
        """The tidy table: system, letter (its marker: a letter, or its number past 26 systems), measure,
        scale, mean, ci95 (half-width of the 95% t confidence interval of the mean), better_than (the
        markers of the systems it is significantly better than, proven; numbers comma-separated), baseline_mark
        (``†``, ``†‡``, ``†?`` (undecided) or empty; only with a baseline), differs (the conclusions differ
        between scales), undecided (the markers of the systems it is significantly better than at some values
        inside the brackets only), mean_lo and mean_hi (the mean's exact range over the brackets; the mean
        itself for exact values)."""
        return self.frame.copy()

    def pairs_frame(self) -> pd.DataFrame:
        """One row per pair tested, measure and scale: system_a, system_b, their means, mean_difference
        (a − b), effect_size_dz (Cohen's d_z: the mean of the paired differences a − b over their standard
        deviation, ddof = 1), statistic (the test's), p_value (raw), p_adjusted (after the correction;
        Tukey's HSD p-value for ``tukey``), significant and better (the system significantly better, or empty);
        then proven (``proven``: the decision holds for every value inside the brackets — always for exact
        values; ``undecided``: not), mean_difference_lo / mean_difference_hi (its exact range over the brackets)
        and p_value_lo / p_value_hi (an outer range of the raw p-value over them; NaN where not bounded: Tukey
        without p-values). On bracketed values every number before ``proven`` is the midpoints' (the values
        shown); ``significant`` is then proven only where ``proven`` says so."""
        return self.pairs.copy()

    def to_markdown(self) -> str:
        return R.markdown(self)

    def to_latex(self, label: str = "tab:irscales-comparison") -> str:
        """LaTeX that compiles in a plain ``article`` with the packages its first line names and fits the
        page (:func:`irscales.comparison._render.latex`)."""
        return R.latex(self, label)

    def to_csv(self) -> str:
        """One row per system (:func:`irscales.comparison._render.wide_frame`), means with every digit; no
        legend (:attr:`legend`)."""
        return R.wide_frame(self).to_csv(index=False)

    def plot(self, path: str | None = None):
        """The figure of the comparison (:func:`irscales.comparison._plot.plot`): means with 95% confidence
        intervals on both scales, ≠ flags; also written to ``path`` (.png, .pdf or .svg) when given."""
        return _plot.plot(self, path)

    def __str__(self) -> str:
        return R.text(self)


# ------------------------------------------------------------------------------------- computing


def _decisions(scores: np.ndarray, test: str, correction: str, alpha: float, family: np.ndarray,
               systems: Sequence[str], permutations: int, seed: int) -> tuple[S.PairwiseTest, np.ndarray, np.ndarray]:
    """The test's result, adjusted p-values and decisions for every pair in
    :func:`irscales.stats._significance.pairs` order; pairs outside ``family`` are NaN / False."""
    key = TESTS[test]
    if test == "randomisation":
        res = randomisation_test(scores, alpha, systems, permutations=permutations, seed=seed)
    else:
        res = S.significance_tests(scores, tests=(key,), alpha=alpha, systems=systems,
                                   pvalues=test == "tukey")[key]
    if test == "tukey":  # Tukey's HSD controls the family-wise error over all pairs itself
        sig = res.significant & family
        return res, np.where(family, res.pvalue, np.nan), sig
    p = np.where(family, res.pvalue, np.nan)
    p = np.where(family & np.isnan(p), 1.0, p)  # undefined (identical systems): not significant
    return (res, *corrected(p, alpha, correction))


def _ci95(scores: np.ndarray) -> np.ndarray:
    """Per system, the half-width of the 95% t confidence interval of its mean over topics (floats)."""
    x = np.asarray(scores, dtype=float)
    t = x.shape[0]
    return stats.t.ppf(0.975, t - 1) * x.std(axis=0, ddof=1) / np.sqrt(t)


def _effect_size_dz(scores: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Per pair, Cohen's d_z: the mean of the paired differences a − b over their standard deviation
    (ddof = 1), in floats (±inf for a constant nonzero difference, NaN for none)."""
    x = np.asarray(scores, dtype=float)
    d = x[:, i] - x[:, j]
    with np.errstate(invalid="ignore", divide="ignore"):
        return d.mean(axis=0) / d.std(axis=0, ddof=1)


#: A comparison estimated above this many seconds is refused before any work (issue 49: 10,000 runs are 50 million
#: pairs, hours of tests and tens of GB of paired differences).
PAIRS_SECONDS_OK = 60.0
#: CPU seconds per pair, measure and scale (the test, its effect size and its row): about 6 µs measured for the
#: t, sign and signed-rank tests on 50 topics (S = 300, issue 49; rounded up), the randomisation test about
#: 10 µs per thousand sign flips.
_PAIR_SECONDS = 8e-6
_FLIP_SECONDS = 1e-8


def pairing_seconds(n_runs: int, n_measures: int, test: str = COMPARISON_DEFAULTS["test"],
                    permutations: int = PERMUTATIONS) -> float:
    """The estimated CPU seconds of a comparison table of ``n_runs`` runs on ``n_measures`` measures, both scales:
    S(S − 1)/2 pairs, each tested, sized and written once per measure and scale."""
    per = _PAIR_SECONDS + (_FLIP_SECONDS * permutations if test == "randomisation" else 0.0)
    return n_runs * (n_runs - 1) / 2 * max(1, n_measures) * 2 * per


def check_pairing(n_runs: int, n_measures: int, test: str = COMPARISON_DEFAULTS["test"],
                  permutations: int = PERMUTATIONS) -> None:
    """Refuse, with the estimate and the number of runs that fit, a comparison over :data:`PAIRS_SECONDS_OK`."""
    est = pairing_seconds(n_runs, n_measures, test, permutations)
    if est <= PAIRS_SECONDS_OK:
        return
    fit = n_runs
    while fit > 2 and pairing_seconds(fit, n_measures, test, permutations) > PAIRS_SECONDS_OK:
        fit = int(fit * 0.9)
    raise ValueError(f"comparing {n_runs:,} runs is {n_runs * (n_runs - 1) // 2:,} pairs on each of {n_measures} "
                     f"measure(s) and both scales: about {est:,.0f} s by estimate, above the {PAIRS_SECONDS_OK:.0f} s "
                     f"a comparison may take; give at most about {fit:,} runs (or fewer measures)")


def comparison_table(original: Mapping[str, np.ndarray], interval: Mapping[str, np.ndarray | None],
                     systems: Sequence[str], *, test: str = COMPARISON_DEFAULTS["test"],
                     correction: str = COMPARISON_DEFAULTS["correction"], alpha: float = 0.05,
                     baseline: str | None = None, rel: np.ndarray | None = None, depth: int | None = None,
                     notes: Sequence[str] = (), permutations: int = PERMUTATIONS, seed: int = 0,
                     order: str = COMPARISON_DEFAULTS["order"],
                     boxes: Mapping[str, ScoreBox] | None = None) -> ComparisonTable:
    """Compare runs on several measures, on the original and the interval scale (see the module docstring).

    original  measure label → ``(T, S)`` scores (floats or exact)
    interval  measure label → ``(T, S)`` interval-scaled scores normalised to [0, 1] (exact Fractions or
              floats), or None where the measure has no interval-scaled version here (its row says so)
    systems   the S system names (markers a, b, … or 1, 2, … in this order)
    baseline  a system name: † / ‡ against it, and the family of each correction is its S − 1 pairs
    rel       binary relevance ``(S, T, ≥ depth)`` of the runs, for the IPSO sign test of ‡ (needs ``depth``)
    permutations, seed  the randomisation test's sampled sign patterns (when T > 20; exact below)
    order     the rows' order (:data:`ORDERS`); the legend names it when not ``given``
    boxes     measure label → :class:`irscales.certified.ScoreBox` of its interval-scaled values where they
              are bracketed (``interval`` then holds the values shown, inside the box): every decision on that
              column is proven over the box or undecided (module docstring); a box of points changes nothing
    """
    check_choice("test", test, tuple(TESTS))  # every argument before any work, naming it (irscales.options)
    check_choice("correction", correction, CORRECTIONS)
    check_choice("order", order, ORDERS)
    alpha = check_alpha(alpha)
    if not _is_count(permutations) or permutations < 1:
        raise ArgumentError("permutations", f"must be a positive integer, got {permutations!r}")
    systems = tuple(str(s) for s in systems)
    if len(systems) < 2:
        raise ValueError(f"a comparison needs at least two runs, got {len(systems)}")
    if not original:
        raise ValueError("no measure to compare")
    if baseline is not None and baseline not in systems:
        raise ValueError(f"baseline {baseline!r} is not one of the runs: {', '.join(systems)}")
    n_sys = len(systems)
    check_pairing(n_sys, len(original), test, permutations)
    boxes = {m: bx for m, bx in (boxes or {}).items() if interval.get(m) is not None and not bx.exact}
    for m, bx in boxes.items():
        if bx.lo.shape != np.shape(interval[m]):
            raise ValueError(f"{m} (interval): its box has shape {bx.lo.shape}, its values {np.shape(interval[m])}")
        boxes[m] = bx.shown(np.asarray(interval[m]))  # a proven decision holds for the values shown too
    if order == "mean" or (order == "auto" and n_sys > R.LETTERS_UP_TO):
        first, scores = next(iter(original)), [np.asarray(v) for v in (*original.values(), *interval.values())
                                                if v is not None]
        if all(v.ndim == 2 and v.shape[1] == n_sys for v in scores):
            means = system_means(np.asarray(original[first]))
            perm = sorted(range(n_sys), key=lambda x: means[x], reverse=True)  # stable: ties in the order given
            return comparison_table(
                {m: np.asarray(v)[:, perm] for m, v in original.items()},
                {m: None if v is None else np.asarray(v)[:, perm] for m, v in interval.items()},
                [systems[x] for x in perm], test=test, correction=correction, alpha=alpha, baseline=baseline,
                rel=None if rel is None else np.asarray(rel)[perm], depth=depth,
                notes=[*notes, f"Rows in decreasing order of the mean {first} (original scale)."],
                permutations=permutations, seed=seed, order="given",
                boxes={m: bx.permuted(perm) for m, bx in boxes.items()})
    i, j = S.pairs(n_sys)
    b = systems.index(baseline) if baseline is not None else None
    family = np.ones(len(i), dtype=bool) if b is None else (i == b) | (j == b)
    ipso = _ipso(rel, depth, b, alpha, correction) if b is not None and rel is not None else None
    letters = R.markers(n_sys)
    rows, pair_rows, notes = [], [], list(notes)
    n_topics, detail = None, ""
    for m, orig in original.items():
        decided = {}
        for scale, sc in (("original", orig), ("interval", interval.get(m))):
            if sc is None:
                continue
            sc = np.asarray(sc)
            if sc.ndim != 2 or sc.shape[1] != n_sys:
                raise ValueError(f"{m} ({scale}): scores must be (topics, {n_sys} systems), got shape {sc.shape}")
            n_topics = sc.shape[0] if n_topics is None else n_topics
            exact_means = system_means(sc)  # exact for exact scores: the direction of each pair
            res, p, sig = _decisions(sc, test, correction, alpha, family, systems, permutations, seed)
            if test == "randomisation":
                detail = ("exact over all 2^T sign flips" if res.omnibus["exact"] else
                          f"{res.omnibus['permutations']:,} random sign flips, seed {res.omnibus['seed']}")
            box = boxes.get(m) if scale == "interval" else None
            pv = _proven(box, res, family, test, correction, alpha, permutations, seed, exact_means, i, j)
            dz = _effect_size_dz(sc, i, j)
            ci = _ci95(sc)
            up = np.array([exact_means[x] > exact_means[y] for x, y in zip(i, j)], dtype=bool)
            down = np.array([exact_means[x] < exact_means[y] for x, y in zip(i, j)], dtype=bool)
            better = {s: [] for s in range(n_sys)}
            undecided = {s: [] for s in range(n_sys)}
            for k in np.flatnonzero(sig & pv["proven"]):
                if up[k]:
                    better[i[k]].append(j[k])
                elif down[k]:
                    better[j[k]].append(i[k])
            for k in np.flatnonzero(~pv["proven"]):
                if pv["a"][k]:
                    undecided[i[k]].append(j[k])
                if pv["b"][k]:
                    undecided[j[k]].append(i[k])
            mid_ok = pv["proven"] & ~((sig & up & ~pv["a"]) | (sig & down & ~pv["b"]) | (~sig & ~pv["not"]))
            if box is not None and not (mid_ok == pv["proven"]).all():  # a proven outcome holds at every point, the midpoints too
                k = int(np.flatnonzero(mid_ok != pv["proven"])[0])
                raise AssertionError(f"{m} ({scale}): the pair {systems[i[k]]}, {systems[j[k]]} is proven but its "
                                     "decision on the values shown differs")
            decided[scale] = (better, sig, pv["proven"])
            for k in np.flatnonzero(family):
                pair_rows.append({"measure": m, "scale": scale, "system_a": systems[i[k]], "system_b": systems[j[k]],
                                  "mean_a": float(exact_means[i[k]]), "mean_b": float(exact_means[j[k]]),
                                  "mean_difference": float(exact_means[i[k]] - exact_means[j[k]]),
                                  "effect_size_dz": float(dz[k]), "statistic": float(res.statistic[k]),
                                  "p_value": float(res.pvalue[k]), "p_adjusted": p[k], "significant": bool(sig[k]),
                                  "better": systems[i[k]] if sig[k] and up[k] else systems[j[k]] if sig[k] and down[k]
                                  else "", "proven": PROVEN if pv["proven"][k] else UNDECIDED,
                                  "mean_difference_lo": float(pv["diff_lo"][k]),
                                  "mean_difference_hi": float(pv["diff_hi"][k]),
                                  "p_value_lo": float(pv["p_lo"][k]), "p_value_hi": float(pv["p_hi"][k])})
            for s in range(n_sys):
                mark = ""
                if b is not None and s != b:
                    k = _pair_index(s, b, n_sys)
                    if sig[k] and pv["proven"][k]:  # ‡: IPSO significant, its majority the way of the means
                        way = 1 if exact_means[s] > exact_means[b] else -1 if exact_means[s] < exact_means[b] else 0
                        mark = "†" + ("‡" if ipso is not None and ipso[0][s] and ipso[1][s] == way != 0 else "")
                    elif not pv["proven"][k]:
                        mark = "†" + UNDECIDED_MARK
                rows.append({"system": systems[s], "letter": letters[s], "measure": m, "scale": scale,
                             "mean": float(exact_means[s]), "ci95": float(ci[s]),
                             "better_than": R.join_marks(letters, better[s]),
                             "baseline_mark": mark, "differs": False,
                             "undecided": R.join_marks(letters, undecided[s]),
                             "mean_lo": float(pv["mean_lo"][s]), "mean_hi": float(pv["mean_hi"][s])})
        if "interval" in decided:
            (bo, so, _), (bi, si, proven) = decided["original"], decided["interval"]
            for r in rows[-2 * n_sys:]:
                s = systems.index(r["system"])
                open_ = {x for x in range(n_sys) if x != s and not proven[_pair_index(s, x, n_sys)]}
                kb = _pair_index(s, b, n_sys) if b is not None and s != b else None
                base_diff = kb is not None and proven[kb] and so[kb] != si[kb]
                r["differs"] = sorted(set(bo[s]) - open_) != sorted(set(bi[s]) - open_) or bool(base_diff)
        else:
            notes.append(f"{m}: no interval-scaled version here (see the notes of the evaluation)")
    frame = pd.DataFrame(rows, columns=["system", "letter", "measure", "scale", "mean", "ci95", "better_than",
                                        "baseline_mark", "differs", "undecided", "mean_lo", "mean_hi"])
    return ComparisonTable(frame=frame, pairs=pd.DataFrame(pair_rows), systems=systems, measures=tuple(original),
                           letters=letters, test=test, correction=correction, alpha=alpha, baseline=baseline,
                           n_topics=int(n_topics or 0), depth=depth, notes=tuple(notes), test_detail=detail,
                           bracketed=tuple(m for m in original if m in boxes))


def _proven(box: ScoreBox | None, res: S.PairwiseTest, family: np.ndarray, test: str, correction: str,
            alpha: float, permutations: int, seed: int, means: np.ndarray, i: np.ndarray, j: np.ndarray) -> dict:
    """Per pair: whether its decision is proven, which outcomes the box allows (``a`` / ``b``: significant with
    the first / second system better), the ranges of its mean difference and raw p-value; per system the range
    of its mean. Without a box (exact values) every decision is proven and every range is the point."""
    if box is None:
        d = np.array([means[x] - means[y] for x, y in zip(i, j)], dtype=object)
        no = np.zeros(len(i), dtype=bool)
        return {"proven": ~no, "a": no, "b": no, "not": ~no, "diff_lo": d, "diff_hi": d, "p_lo": res.pvalue, "p_hi": res.pvalue,
                "mean_lo": means, "mean_hi": means}
    key = TESTS[test]
    pt = proven_test(box, key, alpha, permutations=permutations, seed=seed, pvalues=test == "tukey",
                     p_mid=res.pvalue)
    if test == "tukey":
        sure, possible = pt.sure & family, pt.possible & family
    else:
        sure, possible = proven_corrected(pt.p_lo, pt.p_hi, family, alpha, correction, corrected)
    oc = outcomes(pt, sure, possible)
    mb = mean_bounds(Bounds(box.lo, box.hi))
    return {"proven": oc["proven"], "a": oc["a"], "b": oc["b"], "not": oc["not"], "diff_lo": pt.diff_lo, "diff_hi": pt.diff_hi,
            "p_lo": pt.p_lo, "p_hi": pt.p_hi, "mean_lo": mb.lo, "mean_hi": mb.hi}


def _is_count(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _pair_index(a: int, b: int, n: int) -> int:
    """Position of the pair {a, b} in :func:`irscales.stats._significance.pairs` order."""
    x, y = min(a, b), max(a, b)
    return x * n - x * (x + 1) // 2 + (y - x - 1)


def _ipso(rel: np.ndarray, depth: int | None, b: int, alpha: float, correction: str) -> tuple[np.ndarray, np.ndarray]:
    """Per system against the baseline: whether the IPSO sign test is significant (same correction over the
    S − 1 tests), and the way its majority points (+1: the system non-inferior more often, −1: non-superior)."""
    if depth is None:
        raise ValueError("the IPSO sign test needs the depth of the runs")
    rel = np.asarray(rel)
    p = np.full(rel.shape[0], np.nan)
    way = np.zeros(rel.shape[0], dtype=int)
    for s in range(rel.shape[0]):
        if s != b:
            t = ipso_sign_test(rel[b][..., :depth], rel[s][..., :depth], depth)
            p[s], way[s] = t.pvalue, int(np.sign(t.ni - t.ns))
    _, sig = corrected(p, alpha, correction)
    return sig, way

