"""Statistical significance tests between IR systems, as FFF21 §2.5 and §7.3 use them.

Input: a score matrix ``scores`` of shape ``(T, S)`` (T topics = rows, S systems = columns), of
floats or an object array of :class:`fractions.Fraction` (``Measure.exact``). Every procedure
decides, for each of the ``S(S-1)/2`` system pairs ``(i, j)``, ``i < j`` (in
:func:`numpy.triu_indices` order), whether the two systems are significantly different at level
α (0.05 by default, as in FFF21).

Per pair (no multiple-comparison adjustment, as in FFF21 Tables 5–6), vectorised across pairs:

- ``sign``          Sign test, ties discarded, exact binomial.
- ``ranksum``       Wilcoxon rank-sum (Mann–Whitney) test, normal approximation.
- ``signrank``      Wilcoxon signed-rank test, zero differences discarded.
- ``ttest``         paired Student's t test.

Over all systems at once, an omnibus test followed by Tukey-type comparisons of all pairs:

- ``anova1``        one-way ANOVA (system) + Tukey HSD.
- ``kruskalwallis`` Kruskal–Wallis + Tukey-type comparison of mean ranks.
- ``anova2``        two-way ANOVA topic + system (Tague-Sutcliffe & Blustein) + Tukey HSD on systems.
- ``friedman``      Friedman + Tukey-type comparison of mean ranks.

FFF21 ran these in MATLAB; where textbooks differ (continuity corrections, exact vs approximate
p-values, the variance used for rank comparisons, ``p <= α`` vs ``p < α``) we follow MATLAB's
``signtest``, ``ranksum``, ``signrank``, ``ttest``, ``anova1``/``anova2``, ``kruskalwallis``,
``friedman`` and ``multcompare`` (Tukey–Kramer critical values), and say so in each docstring.
These are the only implementations in the library: MM23's reporting rule
(:mod:`irscales.ipso.corroborate`, ``irscales ipso``), ``irscales compare`` and :mod:`irscales.ipso._sign_test`
call them, so the same scores give the same p-value everywhere (issue 18).

Exactness: whether two scores are tied (sign test, all rank-based tests) is decided on exact
order codes (:func:`irscales.ranks.dense_ranks`), so equal Fractions always tie. For the
signed-rank test the *magnitudes* of the differences must also be compared: with Fractions this is
exact; with floats equal magnitudes can differ in the last bit (0.3−0.1 vs 0.5−0.3), so, as
MATLAB's ``signrank`` does, two magnitudes are tied when they differ by at most
``eps(x) + eps(y)`` of the scores that produced them. Exact binomial / signed-rank tail counts are
compared with α in integer arithmetic. Parametric statistics (t, F, Tukey's q) are computed in
floating point; no tie decision depends on them. For exact input (integers such as the ranked
measure φ, or Fractions) they are computed on the exact positive affine image of the scores onto
[0, 1] (:func:`~irscales.stats._results.unit_image`; the paired t test on exact differences divided
by their largest magnitude): the statistics are invariant under such maps, so this cannot overflow
(φ at depth 1000 is ~2^1000), keeps integers above 2^53 apart, and gives the same floats — hence the
same p-values and decisions — for φ and for any positive affine transform of it. Fractions sharing a common denominator that fits
in 64 bits (P@30: 30) are handled as scaled integers, others as Python Fractions (slower).

Tukey-type decisions use the studentized-range critical value; per-pair p-values are optional
(``pvalues=``): decisions never need them (:func:`~irscales.stats._tukey.studentized_range_sf`
computes them for all pairs at once, seconds for the 8,256 pairs of a TREC-8-sized track).

Layout: input and result types in :mod:`irscales.stats._results`, the per-pair tests in
:mod:`irscales.stats._pairwise`, the all-systems procedures in :mod:`irscales.stats._tukey`; this
module runs several of them on one matrix (:func:`significance_tests`) and compares the decisions
on a measure and on its ranked version (:func:`significance_changes`, FFF21 Tables 5–6). Every
public name of those modules is importable from here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from irscales.options import SIGNIFICANCE
from irscales.stats._pairwise import (binomial_two_sided_table, paired_t_test, rank_sum_test, sign_test,
                                      signed_rank_test)
from irscales.stats._results import (ORDINAL_TESTS, TEST_LABELS, TESTS, PairwiseTest, PreparedScores,
                                     SignificanceResult, check_alpha, pairs, prepare_scores)
from irscales.stats._tukey import anova1_tukey, anova2_tukey, friedman_tukey, kruskal_wallis_tukey

__all__ = [
    "TESTS", "TEST_LABELS", "SignificanceResult", "significance_tests", "compare_significance",
    "significance_changes", "sign_test", "rank_sum_test", "signed_rank_test", "paired_t_test", "anova1_tukey",
    "anova2_tukey", "kruskal_wallis_tukey", "friedman_tukey",
]

#: Test key -> procedure, for every key of :data:`TESTS`.
PROCEDURES = {
    "sign": sign_test, "ranksum": rank_sum_test, "signrank": signed_rank_test, "ttest": paired_t_test,
    "anova1": anova1_tukey, "kruskalwallis": kruskal_wallis_tukey, "anova2": anova2_tukey,
    "friedman": friedman_tukey,
}

#: The procedures that take ``pvalues=`` (Tukey-type comparisons after an omnibus test).
_TUKEY_TYPE = frozenset(p.key for p in SIGNIFICANCE if p.omnibus)


def significance_tests(scores: ArrayLike, tests: Sequence[str] = TESTS, alpha: float = 0.05,
                       systems: Sequence[str] | None = None,
                       pvalues: bool | None = None) -> SignificanceResult:
    """Run several procedures (keys of :data:`TESTS`) on one ``(T, S)`` score matrix.

    ``pvalues``: whether the Tukey-type procedures compute studentized-range p-values for every
    pair (their decisions use the critical value and do not need them). ``None`` (default): always
    for the rank procedures (infinite df), and for the ANOVAs only up to
    :data:`~irscales.stats._tukey.PVALUES_UP_TO` pairs (pass ``True`` for
    more: :func:`~irscales.stats._tukey.studentized_range_sf` takes seconds for TREC-scale 8,256 pairs).
    """
    unknown = [k for k in tests if k not in PROCEDURES]
    if unknown:
        raise ValueError(f"unknown test(s) {unknown}; choose from {list(TESTS)}")
    scores = prepare_scores(scores, systems)  # exact order codes once, not once per procedure
    systems = scores.systems
    out = {}
    for key in tests:
        fn = PROCEDURES[key]
        if key in _TUKEY_TYPE:
            out[key] = fn(scores, alpha=alpha, systems=systems, pvalues=pvalues)
        else:
            out[key] = fn(scores, alpha=alpha, systems=systems)
    return SignificanceResult(out)


# --------------------------------------------------------------------------- original vs ranked


@dataclass(frozen=True)
class SignificanceChange:
    """How significance decisions change from an original measure to its ranked version.

    Per test (FFF21 §7.3, Tables 5–6): ``sig`` = significant pairs with the original measure;
    ``s2ns`` = pairs significant with the original and not with the ranked one; ``ns2s`` = the
    reverse; ratios relative to ``sig``; ``delta`` = (S2NS + NS2S) / Sig (NaN when Sig = 0).
    """

    frame: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        return self.frame.copy()

    def to_latex(self) -> str:
        f = self.frame
        shown = pd.DataFrame({
            "Test": f["label"],
            "Sig": f["sig"],
            "S2NS (%)": [f"{a} ({r:.2%})" for a, r in zip(f["s2ns"], f["s2ns_ratio"])],
            "NS2S (%)": [f"{a} ({r:.2%})" for a, r in zip(f["ns2s"], f["ns2s_ratio"])],
            "Delta%": [f"{d:.2%}" for d in f["delta"]],
        })
        return shown.to_latex(index=False).replace("%", r"\%")


def compare_significance(original: SignificanceResult, ranked: SignificanceResult) -> SignificanceChange:
    """Sig, S2NS, NS2S and Δ% between the tests on an original and on a ranked measure (FFF21 §7.3).

    Both results must come from the same systems and the same tests.
    """
    if original.systems != ranked.systems:
        raise ValueError("the two results are on different systems; compare the same runs")
    missing = set(original.tests) ^ set(ranked.tests)
    if missing:
        raise ValueError(f"tests present in only one of the two results: {sorted(missing)}")
    rows = []
    for key, o in original.tests.items():
        r = ranked.tests[key]
        sig = int(o.significant.sum())
        s2ns = int((o.significant & ~r.significant).sum())
        ns2s = int((~o.significant & r.significant).sum())
        ratio = (lambda c: c / sig if sig else np.nan)
        rows.append({"test": key, "label": TEST_LABELS[key], "ordinal": key in ORDINAL_TESTS,
                     "pairs": len(o.significant), "sig": sig, "s2ns": s2ns, "s2ns_ratio": ratio(s2ns),
                     "ns2s": ns2s, "ns2s_ratio": ratio(ns2s), "delta": ratio(s2ns + ns2s),
                     "sig_ranked": int(r.significant.sum())})
    return SignificanceChange(pd.DataFrame(rows))


def significance_changes(original_scores: ArrayLike, ranked_scores: ArrayLike, tests: Sequence[str] = TESTS,
                         alpha: float = 0.05, systems: Sequence[str] | None = None) -> SignificanceChange:
    """Run ``tests`` on a measure's and on its ranked version's ``(T, S)`` scores and compare them:
    one block of FFF21 Table 5/6 (Tukey p-values are skipped: decisions do not need them)."""
    orig = significance_tests(original_scores, tests=tests, alpha=alpha, systems=systems, pvalues=False)
    rank = significance_tests(ranked_scores, tests=tests, alpha=alpha, systems=systems, pvalues=False)
    return compare_significance(orig, rank)


def grand_mean_delta(changes: Iterable[SignificanceChange]) -> tuple[float, float]:
    """Mean and standard deviation of Δ% over several :class:`SignificanceChange` (FFF21 §7.3: "the
    grand mean across all the tracks, measures, and significance tests", reported as 25% ± 11%).

    Tests with Sig = 0 (Δ% undefined) are left out. The standard deviation is the sample one
    (ddof = 1), as MATLAB's ``std``.
    """
    deltas = np.concatenate([np.asarray(c.frame["delta"], dtype=float) for c in changes])
    deltas = deltas[~np.isnan(deltas)]
    if deltas.size == 0:
        raise ValueError("no defined Δ% values (every test had Sig = 0)")
    return float(deltas.mean()), float(deltas.std(ddof=1)) if deltas.size > 1 else float("nan")
