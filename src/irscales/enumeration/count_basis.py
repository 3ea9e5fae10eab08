"""What counted φ rests on (issue 40: the route states its exactness, callers do not re-derive it): a proof
(:mod:`irscales.enumeration.counting`'s docstring, :mod:`irscales.enumeration.digit_sums`), an enumeration of all
runs that found no tie across DCG's discount classes, or Schanuel's conjecture beyond the depth it reached."""

from __future__ import annotations

from irscales import measures as M
from irscales.enumeration.digit_sums import graded_rbp_tie
from irscales.enumeration.runs import numerator

__all__ = ["dcg_proven_depth", "count_basis"]


#: Counted DCG beyond these N relies on the conjecture stated in :mod:`irscales.enumeration.counting` (no tie
#: across discount classes): the largest N at which an enumeration of all (c+1)^N runs found none, per (log base,
#: grades c). Binary: the engine's scales up to N = 30; graded: the engine's scales the tests compare the count with
#: (tests/test_counting.py: base 2 with four grades at N = 11), and for three grades every distinct
#: class-coefficient tuple of all 3^17 runs (:func:`irscales.enumeration.meet.class_gap`: smallest gap 1.1e-9 in
#: base 2, 2.5e-6 in base 10, far above the float error; tests/test_counting.py). Up to N = base every rank
#: weighs 1 (one class).
_DCG_PROVEN_N = {1: 30}
_GRADED_DCG_PROVEN_N = {(2, 2): 17, (2, 3): 11, (10, 2): 17}


def dcg_proven_depth(measure: M.Measure, c: int) -> int:
    """The largest run length N at which counted φ of a DCG/nDCG with the JK discount over grades 0..c is
    proven exact by enumeration (no tie across discount classes among all (c+1)^N runs); beyond it, it is
    exact if Schanuel's conjecture holds (module docstring)."""
    base = int(measure.base) if float(measure.base) == int(measure.base) else 0
    if c == 1:
        return max(_DCG_PROVEN_N[1], base)
    return max(_GRADED_DCG_PROVEN_N.get((base, c), 0), base)


def count_basis(measure: M.Measure, N: int, c: int = 1) -> tuple[str, str]:
    """What counted φ of ``measure`` at run length N over grades 0..c rests on: (``proof``, ``enumeration`` or
    ``conditional``, the reason in words) — the proofs of :mod:`irscales.enumeration.counting`, the enumeration
    that found no tie across DCG's discount classes (:func:`dcg_proven_depth`), or Schanuel's conjecture beyond."""
    num = numerator(measure)
    if num.form == "discounted":
        if num.integer_log_base is not None and N <= num.integer_log_base:
            return "proof", "counted; every rank up to the log base weighs 1 (a sum of gains)"
        depth = dcg_proven_depth(num, c)
        if N <= depth:
            return "enumeration", (f"counted; no tie across discount classes among all {(c + 1) ** N:,} runs, checked "
                                   f"by enumeration up to N = {depth}")
        runs = "runs" if c == 1 else f"runs over {c + 1} grades"
        return "conditional", (f"exact if no Q-linear relation among the 1/ln m exists (Schanuel's conjecture); "
                               f"proven by enumeration of all {runs} up to N = {depth} (irscales.enumeration.counting)")
    if num.form == "geometric":
        if graded_rbp_tie(num.p, c) is not None:
            return "proof", ("counted; ties, every integer key a value, carries (proof in "
                             "irscales.enumeration.digit_sums)")
        return "proof", "counted; no ties (proof in irscales.enumeration.counting)"
    if num.form == "sp":
        return "proof", "counted; exact keys SP·lcm(1..N) (irscales.enumeration.ap_count)"
    return "proof", "counted; closed form"
