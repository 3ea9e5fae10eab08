"""MM23's proposal (§3, "Using IPSO as a Corroboration"): one metric, one test, and an IPSO sign test.

For a champion A and a challenger B over topics:

1. report mean metric scores M(A), M(B) and the effect size M(B) − M(A);
2. test the null "the effect size is zero" (paired t, Wilcoxon signed-rank or sign test);
   if p < α, add a † and claim significance;
   the tests are those of :mod:`irscales.stats.significance` (one implementation for ``irscales compare``,
   ``irscales ipso`` and the notebooks): MATLAB's conventions, which FFF21 used; MM23 do not say
   which implementation they used. For the signed-rank test: zero differences dropped, average
   ranks, exact p for n <= 15 non-zero differences, else the normal approximation with the tie
   correction and no continuity correction; with MM23's 249 topics that is the normal
   approximation scipy's ``wilcoxon(zero_method="wilcox", correction=False)`` also uses;
3. if (and only if) p < α, run the IPSO sign test: over topics, count those where B is non-inferior
   to A (``ni``) and those where B is non-superior (``ns``), ignoring equal and non-separable
   topics, and test the null |ni| = |ns| with a two-tailed exact binomial test;
   if that p < α too, add a ‡ as a corroboration of generality.
"""

from __future__ import annotations

from dataclasses import dataclass
import numpy as np

from irscales import ipso
from irscales.stats import significance as S
from irscales.measures import Measure
from irscales.stats.significance import binomial_two_sided_table

TESTS = ("t", "wilcoxon", "sign")


def binomial_two_sided(k: int, n: int) -> float:
    """Exact two-tailed sign-test p-value: P(X ≤ min(k, n−k)) + P(X ≥ max(k, n−k)), X ~ Bin(n, 1/2)."""
    if not 0 <= k <= n:
        raise ValueError(f"sign test needs 0 <= k <= n, got k={k}, n={n}")
    return float(binomial_two_sided_table(n)[n, min(k, n - k)])


@dataclass(frozen=True)
class IPSOSignTest:
    """IPSO relation counts of B against A over topics, and the sign test on ni vs ns."""

    equal: int
    ni: int
    ns: int
    nonseparable: int
    pvalue: float

    @property
    def n_topics(self) -> int:
        return self.equal + self.ni + self.ns + self.nonseparable


def ipso_sign_test(rel_a, rel_b, k: int) -> IPSOSignTest:
    """IPSO sign test (MM23 §3): ``rel_a``, ``rel_b`` of shape (topics, ranks), B against A."""
    res = ipso.compare(np.asarray(rel_b), np.asarray(rel_a), k=k)
    c = res.counts()
    ni, ns = c["ni"], c["ns"]
    return IPSOSignTest(equal=c["="], ni=ni, ns=ns, nonseparable=c["**"], pvalue=binomial_two_sided(ni, ni + ns))


_TEST_FUNCTIONS = {"t": S.paired_t_test, "wilcoxon": S.signed_rank_test, "sign": S.sign_test}


def metric_test(a: np.ndarray, b: np.ndarray, test: str) -> float:
    """Two-tailed p-value of the paired test of B − A over topics, from :mod:`irscales.stats.significance`
    (``paired_t_test``, ``signed_rank_test``, ``sign_test``); 1 when A and B are equal on every topic."""
    fn = _TEST_FUNCTIONS.get(test)
    if fn is None:
        raise ValueError(f"unknown test {test!r}; choose from {', '.join(TESTS)}")
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired scores must be two vectors of the same length, got shapes {a.shape}, {b.shape}")
    p = float(fn(np.column_stack([a, b])).pvalue[0])
    return 1.0 if np.isnan(p) else p  # the t test of identical runs


@dataclass(frozen=True)
class Corroboration:
    """The outcome of MM23's reporting rule for one pair of systems."""

    measure: str
    depth: int
    test: str
    alpha: float
    mean_a: float
    mean_b: float
    pvalue: float
    ipso: IPSOSignTest | None

    @property
    def effect(self) -> float:
        return self.mean_b - self.mean_a

    @property
    def marker(self) -> str:
        """``†`` metric significant; ``†‡`` corroborated by IPSO too; ``""`` otherwise."""
        if not self.pvalue < self.alpha:
            return ""
        return "†‡" if self.ipso is not None and self.ipso.pvalue < self.alpha else "†"

    def lines(self) -> list[str]:
        out = [
            f"measure {self.measure} at depth {self.depth}, {self.test} test, alpha={self.alpha}",
            f"mean A = {self.mean_a:.4f}   mean B = {self.mean_b:.4f}   effect B-A = {self.effect:+.4f}",
            f"metric test p = {self.pvalue:.4g}" + ("  †" if self.pvalue < self.alpha else "  (not significant)"),
        ]
        if self.ipso is None:
            out.append("IPSO sign test not run (the metric test is not significant, MM23 §3)")
        else:
            i = self.ipso
            out.append(f"IPSO of B vs A over {i.n_topics} topics: = {i.equal}, ni {i.ni}, ns {i.ns}, "
                       f"non-separable {i.nonseparable}; sign test p = {i.pvalue:.4g}"
                       + ("  ‡" if i.pvalue < self.alpha else ""))
        out.append(f"report: B {self.marker or '(no marker)'}")
        return out


def corroborate(rel_a, rel_b, measure: Measure, depth: int, rb=None, ideal=None, test: str = "t",
                alpha: float = 0.05, always_ipso: bool = False) -> Corroboration:
    """Apply MM23's rule to runs ``rel_a``, ``rel_b`` of shape (topics, ≥ depth)."""
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; choose from {', '.join(TESTS)}")
    a = np.asarray(rel_a)[..., :depth]
    b = np.asarray(rel_b)[..., :depth]
    sa, sb = measure(a, rb=rb, ideal=ideal), measure(b, rb=rb, ideal=ideal)
    p = metric_test(sa, sb, test)
    run_ipso = always_ipso or p < alpha
    return Corroboration(measure.key, depth, test, alpha, float(sa.mean()), float(sb.mean()), p,
                         ipso_sign_test(a, b, depth) if run_ipso else None)
