"""The form protocol: :class:`Form`, the registry of forms and :func:`form_of` (issue 50).

A measure declares the arithmetic *form* of its numerator by name (:attr:`irscales.measures.Measure.form`:
``"grade_sum"``, ``"geometric"``, ``"sp"`` …). The form object registered under that name is where the enumeration
layer learns everything that depends on it: the engine's kernel keys, the closed-form scale, the count of φ
(FFF21 eq. 2, §7.1.3) without a scale, what a count or a build costs and what its exactness rests on, and the
bracket of φ beyond the exact routes. The planner (:mod:`irscales.enumeration.routes`), the kernels, the counting
and the bounded route ask the form; none of them compares a form's name.

Every method takes the measure ``m`` (any measure whose :meth:`~irscales.measures.Measure.numerator` declares this
form: AP for the ``sp`` form) and reads its parameters from the numerator. The defaults of :class:`Form` say "not
here": no kernel, no closed form, no count, no bracket — the form of a measure that declares none (``""``, e.g. ERR)
is a bare :class:`Form`. A new form subclasses :class:`Form`, overrides what it offers and calls :func:`register`
(``CONTRIBUTING.md`` walks through it).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from irscales import measures as M
from irscales.enumeration.bracket import Knapsack, knapsack_phi_bounds
from irscales.enumeration.ties import check_ties
from irscales.options import UNQ

__all__ = ["Form", "KnapsackForm", "register", "closed_count_cost"]

#: Engine wall time per enumerated run on 2 cores for a form that states none of its own (docs/benchmarks.md).
SECONDS_PER_RUN = 4e-7
#: Why a form without a graded count stops at binary runs.
BINARY_ONLY = ("counting covers binary runs only (graded: gP, gRBP without ties or with p = 1/b, gDCG/gnDCG with the "
               "JK discount)")


#: What a knapsack bracket rests on (the bounded route's basis), and the caveat of distinct values counted as tuples.
KNAPSACK_BASIS = ("φ bracketed by counting knapsack solutions with Dyer's rounding (Dyer, STOC 2003), proven lower "
                  "and upper counts (irscales.enumeration.bracket, bracket_additive)")
SCHANUEL = ("; distinct values counted as discount-class coefficient tuples: exact if no Q-linear relation among "
            "the 1/ln m exists (Schanuel's conjecture)")


def no_bracket(m: M.Measure, c: int) -> str:
    """Why φ of ``m`` over grades 0..c has no bracket."""
    return (f"no bracket for {m!r} over grades 0..{c} (bracketed: RBP over binary runs, gRBP, DCG/nDCG with "
            "an integer base and JK or log2p1 discount, binary gains over binary runs or graded gains)")


def closed_count_cost(N: int, c: int, ties: str | None, runs: int) -> tuple[float, int]:
    """(seconds, bytes) of a closed-form count (:func:`irscales.enumeration.counting.count_cost`): ~10 ns per rank
    and run plus, for min/max/mid, the walk over the counts of the grade sums."""
    bits = N * math.log2(c + 1)
    walk = 0.0 if ties == UNQ else (c * N / 2) * c * (bits / 64) * 2e-8
    return 1e-3 + runs * N * 1e-8 + walk, int(runs * max(8, bits / 8))


class Form:
    """The arithmetic form of a numerator (module docstring): what the enumeration can do with it. The defaults
    offer nothing; a form overrides the groups it has (kernel, closed form, count, bracket)."""

    #: The name measures declare (:attr:`irscales.measures.Measure.form`); messages and the registry use it.
    name: str = ""

    def __repr__(self) -> str:
        return f"<form {self.name or 'none'}>"

    # -- the engine's kernel (irscales.enumeration._kernels) -----------------------------------------------------------

    #: Whether the engine enumerates this form (:meth:`build_kernel`).
    has_kernel: bool = False

    def build_kernel(self, ker, a_dig: np.ndarray, b_dig: np.ndarray, graded: bool, int_bits: int) -> None:
        """Fill ``ker`` (a :class:`irscales.enumeration._kernels.Kernel` of ``ker.measure``, N, c, split into top
        halves ``a_dig`` and bottom halves ``b_dig``) with its half tables: ``ker.additive_int``, ``ker.float_keys``
        or ``ker.set_groups``. ``graded``: grades enter as gains (c > 1 and the measure reads them)."""
        raise NotImplementedError(f"form {self.name!r} has no enumeration kernel")

    def kernel_mode(self, m: M.Measure, N: int, c: int, int_bits: int = 62) -> str:
        """The kernel's ``mode`` without building it: ``"int"`` (exact int64 keys) or ``"float"``."""
        return "int"

    def engine_depth(self, m: M.Measure, c: int, best: int, why: str) -> tuple[int, str]:
        """The engine's reach for ``m`` over grades 0..c, given the half-table bound (``best``, ``why``)."""
        return best, why

    def build_rate(self, m: M.Measure) -> float:
        """Engine seconds per enumerated run (2 cores)."""
        return SECONDS_PER_RUN

    def distinct_bound(self, m: M.Measure, N: int, c: int) -> int:
        """An upper bound on the distinct values a stored scale holds (all runs, unless the ties are known)."""
        return (c + 1) ** N

    # -- the closed-form scale (irscales.enumeration._scale_class) -----------------------------------------------------

    def has_closed_form(self, m: M.Measure) -> bool:
        """Whether the binary scale of ``m`` is a closed form at every N."""
        return False

    def closed_form(self, m: M.Measure, N: int) -> tuple[list, str]:
        """The closed-form scale's chunks (:mod:`irscales.enumeration._cache`) and their key kind (``"key"``: the
        kernel's keys; ``"runid"``: run ids)."""
        raise NotImplementedError(f"form {self.name!r} has no closed-form scale")

    def closed_chunks(self, m: M.Measure, N: int) -> int:
        """How many chunks :meth:`closed_form` gives (its reading cost), without building them."""
        return 1

    def float_values(self, keys: np.ndarray, N: int, mode: str, denominator: Fraction) -> np.ndarray:
        """Float values of a scale's keys (display): key / denominator for integer keys, float keys as they are."""
        return keys.astype(float) / float(denominator) if mode == "int" else keys.astype(float)

    def exact_values(self, keys: np.ndarray, N: int, denominator: Fraction, norm: Fraction) -> list[Fraction]:
        """Exact values of integer keys: key / denominator / norm."""
        return [Fraction(int(k)) / denominator / norm for k in keys.tolist()]

    # -- φ counted without a scale (irscales.enumeration.counting) ---------------------------------------------------

    def counting_depth(self, m: M.Measure, c: int, ties: str | None) -> tuple[float, str]:
        """The deepest N at which φ is counted (``math.inf``: any) with ``ties`` (None: every strategy), and why not
        further; 0 when not counted."""
        if c != 1:
            return 0, BINARY_ONLY
        return 0, (f"no counting rule for {m!r} (counted: P, R, RR, Succ, RBP with rational p, DCG/nDCG with the JK "
                   "discount and binary or graded gains, AP, SP, gP, gRBP)")

    def count(self, m: M.Measure, runs: np.ndarray, N: int, c: int, ties: tuple[str, ...], progress: bool,
              workers: int | None) -> dict[str, np.ndarray]:
        """φ of ``runs`` (n, L ≤ N; int64 grades 0..c when the measure reads grades, else booleans) for each tie
        strategy, tie → flat array (:mod:`irscales.enumeration.ties`' exact types). L < N only where
        :meth:`pads_lazily`."""
        raise ValueError(f"φ of {m.key} is not counted")

    def pads_lazily(self, m: M.Measure, c: int) -> bool:
        """Whether :meth:`count` takes the stored ranks with N given (trailing non-relevant ranks change nothing it
        reads), so that the padding is never allocated."""
        return False

    def n_distinct(self, m: M.Measure, N: int, c: int) -> int:
        """|M(REL^N)| over grades 0..c, where counted."""
        raise ValueError(f"{m.key} is not counted")

    def count_family(self, m: M.Measure, c: int) -> str:
        """The tables a count keeps between calls (``rbp``, ``ap``), or how it counts (``closed``, ``digits``,
        ``dcg``, ``gdcg``); ``none`` when not counted (:func:`irscales.enumeration.counting.release_tables`)."""
        return "none"

    def count_cost(self, m: M.Measure, N: int, c: int, ties: str | None, runs: int) -> tuple[float, int]:
        """Rough (seconds, peak bytes of its tables) of counting φ of ``runs`` runs (docs/benchmarks.md)."""
        return math.inf, 0

    def count_basis(self, m: M.Measure, N: int, c: int) -> tuple[str, str]:
        """What counted φ rests on: (``proof``, ``enumeration`` or ``conditional``, the reason in words)."""
        return "proof", "counted; closed form"

    # -- φ bracketed beyond the exact routes (irscales.enumeration.bounded) ------------------------------------------

    def knapsack(self, m: M.Measure, c: int) -> Knapsack | None:
        """The counting knapsack of ``m`` over grades 0..c when φ is bracketed as one (:class:`KnapsackForm`),
        else None."""
        return None

    def bracket_depth(self, m: M.Measure, c: int, ties: str | None) -> tuple[float, str]:
        """The deepest N at which φ is bracketed with ``ties``, and why not further (0: not bracketed)."""
        return 0, no_bracket(m, c)

    def bracket_depth_within(self, m: M.Measure, c: int, ties: str | None, rel_error: float) -> tuple[float, str]:
        """The deepest N at which φ is bracketed with ``ties`` within ``rel_error`` in the bracket's budget, and why
        not further (a bracket that reaches any error it is asked: :meth:`bracket_depth`)."""
        return self.bracket_depth(m, c, ties)

    def bracket_error(self, m: M.Measure, N: int, c: int, ties: str) -> float:
        """The least ``max_rel_error`` the bracket of φ at N reaches within its budget (0: any it is asked)."""
        return 0.0

    def bracket_cost(self, m: M.Measure, N: int, c: int, ties: str, n_runs: int) -> tuple[float, int]:
        """Rough (seconds, bytes) of bracketing φ of ``n_runs`` runs."""
        raise ValueError(f"φ of {m.key} over grades 0..{c} is not bracketed: {no_bracket(m, c)}")

    def k_bounds(self, m: M.Measure, N: int, c: int, ties: str) -> tuple[int, int]:
        """(lo, hi) of K, the size of φ's range (exact where lo = hi)."""
        raise ValueError(f"φ of {m.key} over grades 0..{c} is not bracketed at N={N}: {no_bracket(m, c)}")

    def phi_bounds_ties(self, m: M.Measure, rel, ties: tuple[str, ...], *, N: int, c: int, rel_error: float,
                        progress: bool | None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """tie → (lo, hi), proven bounds on φ of runs ``rel`` (…, L ≤ N), within ``rel_error`` where reachable."""
        raise ValueError(f"φ of {m.key} over grades 0..{c} is not bracketed at N={N}: {no_bracket(m, c)}")

    def bracket_basis(self, m: M.Measure, c: int, ties: tuple[str, ...]) -> tuple[str, bool]:
        """What the bracket of φ over grades 0..c with ``ties`` rests on, in words, and whether it is proven (False:
        on a conjecture)."""
        return "", True


class KnapsackForm(Form):
    """A form whose φ is bracketed as a counting knapsack (:func:`irscales.enumeration.bracket.knapsack_phi_bounds`,
    Dyer's rounding): it gives :meth:`knapsack`, the rest of the bracket follows from it."""

    def bracket_depth(self, m, c, ties):
        ks = self.knapsack(m, c)
        return super().bracket_depth(m, c, ties) if ks is None else ks.depth(c, ties)

    def bracket_cost(self, m, N, c, ties, n_runs):
        ks = self.knapsack(m, c)
        return super().bracket_cost(m, N, c, ties, n_runs) if ks is None else ks.cost(N, c, ties, n_runs)

    def _reached(self, m: M.Measure, N: int, c: int, ties: str | None) -> Knapsack:
        depth, why = self.bracket_depth(m, c, ties)
        if not 1 <= N <= depth:
            raise ValueError(f"φ of {m.key} over grades 0..{c} is not bracketed at N={N}: {why}")
        return self.knapsack(m, c)

    def k_bounds(self, m, N, c, ties):
        check_ties(ties)
        k = self._reached(m, N, c, ties).k(N, c, ties)
        return k, k

    def phi_bounds_ties(self, m, rel, ties, *, N, c, rel_error, progress):
        ties = tuple(ties)
        for t in ties:
            check_ties(t)
            self._reached(m, N, c, t)
        ks = self.knapsack(m, c) or self._reached(m, N, c, None)
        return knapsack_phi_bounds(ks, m.key, rel, ties, N=N, c=c, rel_error=rel_error, progress=progress)

    def bracket_basis(self, m, c, ties):
        ks = self.knapsack(m, c)
        conditional = ks is not None and any(ks.conditional(t) for t in ties)
        return KNAPSACK_BASIS + (SCHANUEL if conditional else ""), not conditional


#: The registered forms by name.
FORMS: dict[str, Form] = {}
#: The form of a measure that declares none.
NO_FORM = Form()


def register(form: Form) -> Form:
    """Register ``form`` under its name (a later form of the same name replaces it); returns it."""
    if not form.name:
        raise ValueError("a form needs a name (the string measures declare as their form)")
    FORMS[form.name] = form
    return form


def form_of(m: M.Measure) -> Form:
    """The form of ``m``'s numerator (:meth:`~irscales.measures.Measure.numerator`, its declared
    :attr:`~irscales.measures.Measure.form`): :data:`NO_FORM` when it declares none."""
    name = m.numerator().form
    if not name:
        return NO_FORM
    try:
        return FORMS[name]
    except KeyError:
        known = ", ".join(sorted(FORMS))
        raise ValueError(f"{m!r} declares the form {name!r}, which no registered form has (registered: {known}; "
                         "irscales.enumeration.forms.register adds one)") from None

