"""MM23's proposal (§3, "Using IPSO as a Corroboration"): one metric, one test, and an IPSO sign test.

For a champion A and a challenger B over topics:

1. report mean metric scores M(A), M(B) and the effect size M(B) − M(A);
2. test the null "the effect size is zero" (paired t, Wilcoxon signed-rank or sign test);
   if p < α, add a † and claim significance;
   the tests are those of :mod:`irscales.stats._significance` (via :func:`irscales.ipso.metric_test`;
   one implementation for ``irscales compare``, ``irscales ipso`` and the notebooks): MATLAB's
   conventions, which FFF21 used; MM23 do not say which implementation they used. For the
   signed-rank test: zero differences dropped, average ranks, exact p for n <= 15 non-zero
   differences, else the normal approximation with the tie correction and no continuity
   correction; with MM23's 249 topics that is the normal approximation scipy's
   ``wilcoxon(zero_method="wilcox", correction=False)`` also uses;
3. if (and only if) p < α, run the IPSO sign test (:func:`irscales.ipso.ipso_sign_test`): over
   topics, count those where B is non-inferior to A (``ni``) and those where B is non-superior
   (``ns``), ignoring equal and non-separable topics, and test the null |ni| = |ns| with a
   two-tailed exact binomial test; if that p < α too, add a ‡ as a corroboration of generality.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from irscales.ipso._agreement import metric_test, test_key
from irscales.ipso._sign_test import IPSOSignTest, ipso_sign_test
from irscales.measures import Measure
from irscales.options import TEST_NAMES

__all__ = ["Corroboration", "corroborate"]


@dataclass(frozen=True, kw_only=True)
class Corroboration:
    """The outcome of MM23's reporting rule for one pair of systems (``test``: a test key)."""

    measure: str
    depth: int
    test: str
    alpha: float
    mean_a: float
    mean_b: float
    pvalue: float
    ipso: IPSOSignTest | None
    way: int | None = None  # the exact sign of the effect (None: the sign of the float one)

    @property
    def effect(self) -> float:
        """Effect size M(B) − M(A)."""
        return self.mean_b - self.mean_a

    @property
    def _way(self) -> int:
        return self.way if self.way is not None else _sign(self.effect)

    @property
    def corroborated(self) -> bool:
        """The IPSO sign test is significant *and* its majority points the way of the effect (ni > ns for
        B ahead, ns > ni for B behind): a significant IPSO result the other way corroborates nothing."""
        i = self.ipso
        if i is None or not i.pvalue < self.alpha:
            return False
        return (self._way > 0 and i.ni > i.ns) or (self._way < 0 and i.ns > i.ni)

    @property
    def marker(self) -> str:
        """``†`` metric significant (MM23's null: no effect, two-tailed); ``†‡`` corroborated by IPSO
        too (:attr:`corroborated`); ``""`` otherwise."""
        if not self.pvalue < self.alpha:
            return ""
        return "†‡" if self.corroborated else "†"

    def lines(self) -> list[str]:
        """The report, one line per step of the rule."""
        out = [
            f"measure {self.measure} at depth {self.depth}, {TEST_NAMES[self.test]} test, alpha={self.alpha}",
            f"mean A = {self.mean_a:.4f}   mean B = {self.mean_b:.4f}   effect B-A = {self.effect:+.4f}",
            f"metric test p = {self.pvalue:.4g}" + ("  †" if self.pvalue < self.alpha else "  (not significant)"),
        ]
        if self.ipso is None:
            out.append("IPSO sign test not run (the metric test is not significant, MM23 §3)")
        else:
            i = self.ipso
            out.append(f"IPSO of B vs A over {i.n_topics} topics: = {i.equal}, ni {i.ni}, ns {i.ns}, "
                       f"non-separable {i.nonseparable}; sign test p = {i.pvalue:.4g}"
                       + ("  ‡" if self.corroborated and self.marker else
                          "  (‡ is given only with †, MM23 §3)" if i.pvalue < self.alpha and not self.marker else ""))
            out.append("  (IPSO, MM23 §2: '=' the two rankings are the same; ni: B non-inferior to A, B at least as "
                       "good by every metric; ns: B non-superior; non-separable: metrics disagree)")
        if not self.marker:
            out.append("report: no significant difference between A and B")
        else:
            way = "better" if self._way > 0 else "worse" if self._way < 0 else "different from"
            out.append(f"report: B is {way} than A {self.marker}"
                       + ("" if self.corroborated else "  (not corroborated by IPSO)"))
        return out


def corroborate(rel_a: ArrayLike, rel_b: ArrayLike, measure: Measure, depth: int, rb: ArrayLike | None = None,
                ideal: ArrayLike | None = None, test: str = "ttest",
                alpha: float = 0.05, always_ipso: bool = False) -> Corroboration:
    """Apply MM23's rule to runs ``rel_a``, ``rel_b`` of shape (topics, ≥ depth); ``test`` is a key
    of :data:`irscales.ipso.METRIC_TESTS` (or its name: ``t``, ``wilcoxon``)."""
    key = test_key(test)
    a = np.asarray(rel_a)[..., :depth]
    b = np.asarray(rel_b)[..., :depth]
    # a rational measure is tested on exact values: floats can round its differences away (issue 37)
    score = measure.exact if measure.rational else measure
    sa, sb = score(a, rb=rb, ideal=ideal), score(b, rb=rb, ideal=ideal)
    p = metric_test(sa, sb, key)
    run_ipso = always_ipso or p < alpha
    mean_a, mean_b = sum(sa) / len(sa), sum(sb) / len(sb)
    return Corroboration(measure=measure.key, depth=depth, test=key, alpha=alpha, mean_a=float(mean_a),
                         mean_b=float(mean_b), pvalue=p,
                         ipso=ipso_sign_test(a, b, depth) if run_ipso else None, way=_sign(mean_b - mean_a))


def _sign(x) -> int:
    return int(x > 0) - int(x < 0)
