"""The bounded route: φ at cut-offs beyond the exact routes, bracketed with a proven relative error (issue 42).

A registered provider (:mod:`irscales.enumeration.providers`) of kind ``"bounded"``, ``exact = False``, after the
four exact ones. It serves

* AP (a measure whose numerator declares ``form = "sp"``) with ties ``min``/``max``/``mid`` to N = 1020:
  :mod:`irscales.enumeration._bracket_ap` (a rounded count over ranks, lower and upper counts proven, refined
  until hi ≤ (1 + ε)·lo within a time budget). Deep runs need a wider ε than 1 % (N = 1000: about 0.16 in the
  budget): a request below the error reachable at N is refused naming it (:func:`reach_within`); 1.0 (a proven
  factor 2) is a request like any other. AP with ties ``unq`` is not bracketed beyond the exact deduplication
  (N = 24): counting runs does not count distinct values, and no deterministic bracket of them is known.
* RBP and graded RBP with rational p, DCG/nDCG with an integer base and the JK or trec_eval's log2(i + 1)
  discount: :mod:`irscales.enumeration.bracket_additive` (counting knapsack solutions with Dyer's rounding,
  STOC 2003, proven bounds refined until hi ≤ (1 + ε)·lo; :mod:`irscales.enumeration.bracket`). DCG's
  ``unq`` counts coefficient tuples: distinct values only if no Q-linear relation among the 1/ln m exists
  (Schanuel's conjecture), as the counted DCG route.

The planner (:func:`irscales.enumeration.routes.choose_route`) takes an exact route first and the bounded one
only where no exact route reaches the request or the exact one is estimated above
:data:`irscales.enumeration.routes.EXACT_SECONDS_PROHIBITIVE`. A :class:`BoundedRoute` gives the bracket by
:meth:`~BoundedRoute.phi_bounds` and, as φ, the **lower midpoint** ⌊(lo + hi)/2⌋ of the bracket (in halves
for ``mid``: ⌊lo + hi⌋/2), within hi/lo − 1 ≤ ε of the exact φ relative to it. K is exact: (c + 1)^N runs,
as many values for RBP, the product of the class sizes for DCG ``unq``.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from irscales import measures as M
from irscales.enumeration.forms import form_of
from irscales.enumeration.providers import Request, register
from irscales.enumeration.routes import Route
from irscales.enumeration.ties import TIES
from irscales.options import DEFAULT_MAX_REL_ERROR, DEFAULT_TIES

__all__ = ["BoundedProvider"]


def lower_midpoint(lo, hi):
    """⌊(lo + hi)/2⌋ of integer bounds; of halves (ties ``mid``) ⌊lo + hi⌋/2: a point of the bracket, exact."""
    if isinstance(lo, Fraction) or isinstance(hi, Fraction):
        return Fraction(math.floor(Fraction(lo) + Fraction(hi)), 2)
    return (int(lo) + int(hi)) // 2


_midpoints = np.frompyfunc(lower_midpoint, 2, 1)


def _bracketed(m: M.Measure, c: int) -> M.Measure:
    """The measure whose φ the bracket counts: a measure cut at k ranks whose form brackets it as a knapsack is the
    measure itself over REL^k (:func:`irscales.interval.scale_target`; :mod:`irscales.enumeration.bracket_additive`
    reads cut-offs so), any other measure is itself."""
    u = m.uncut
    return u if u is not m and form_of(u).knapsack(u, c) is not None else m


class BoundedRoute(Route):
    """φ bracketed within ``max_rel_error`` (module docstring); nothing stored, no scale."""

    stored = False

    def scale(self, *args, **kwargs):
        raise ValueError(f"{self.measure.key} at N={self.N} is bracketed, not enumerated: it has no scale "
                         "(phi_bounds gives φ's bracket)")

    def K_bounds(self, ties: str = DEFAULT_TIES) -> tuple[int, int]:
        """(lo, hi) of K, the size of φ's range (exact where lo = hi)."""
        m = _bracketed(self.measure, self.c)
        return form_of(m).k_bounds(m, self.N, self.c, ties)

    def K(self, ties: str = DEFAULT_TIES) -> int:
        lo, hi = self.K_bounds(ties)
        if lo != hi:  # the provider offers no such request: K would have to be bracketed in the values too
            raise ValueError(f"K of {self.measure.key} at N={self.N} (ties {ties}) is only bounded: "
                             f"{lo} ≤ K ≤ {hi}")
        return lo

    def phi_bounds_ties(self, rel, ties=TIES, progress: bool | None = None, **kwargs
                        ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """tie → (lo, hi), proven bounds on φ of runs ``rel`` (…, L ≤ N), object arrays of ints (``mid``:
        halves), hi ≤ (1 + max_rel_error)·lo where the bracket reaches it (else a ``RuntimeWarning``)."""
        m = _bracketed(self.measure, self.c)
        return form_of(m).phi_bounds_ties(m, rel, tuple(ties), N=self.N, c=self.c, rel_error=self.max_rel_error,
                                          progress=progress)

    def phi_bounds(self, rel, ties: str = DEFAULT_TIES, progress: bool | None = None, **kwargs
                   ) -> tuple[np.ndarray, np.ndarray]:
        return self.phi_bounds_ties(rel, (ties,), progress)[ties]

    def phi_runs(self, rel, ties: str = DEFAULT_TIES, progress: bool | None = None, workers: int | None = None,
                 **scale_kwargs) -> np.ndarray:
        """The lower midpoint of φ's bracket (:func:`lower_midpoint`), exact ints or halves."""
        return _midpoints(*self.phi_bounds(rel, ties, progress))

    def phi_runs_ties(self, rel, ties=TIES, progress: bool | None = None, workers: int | None = None,
                      **scale_kwargs) -> dict[str, np.ndarray]:
        return {t: _midpoints(lo, hi) for t, (lo, hi) in self.phi_bounds_ties(rel, ties, progress).items()}


class BoundedProvider:
    """The bounded route (module docstring): offered wherever a bracket reaches the request; the planner
    prefers every exact route that is not prohibitively slow."""

    kind, exact = "bounded", False

    def reach(self, m: M.Measure, c: int, ties: str | None) -> tuple[float, str]:
        return self.reach_within(m, c, ties, DEFAULT_MAX_REL_ERROR)

    def reach_within(self, m: M.Measure, c: int, ties: str | None, rel_error: float) -> tuple[float, str]:
        """The deepest N served within ``rel_error`` (:meth:`reach`: the default error) and why not further."""
        form, m = form_of(_bracketed(m, c)), m.uncut  # a refusal names the measure over its own ranks
        if ties is None:  # every tie strategy: the shortest reach
            return min((form.bracket_depth_within(m, c, t, rel_error) for t in TIES), key=lambda r: r[0])
        return form.bracket_depth_within(m, c, ties, rel_error)

    def offer(self, req: Request) -> BoundedRoute | None:
        m, N, c = req.measure, req.N, req.c
        if req.need == "scale" or N > min(self.reach_within(m, c, t, req.max_rel_error)[0] for t in req.ties):
            return None
        target = _bracketed(m, c)
        if target is not m and N != m.k:
            raise ValueError(f"{m.key} is the measure at N={m.k}, not N={N} (its ranks beyond {m.k} never count)")
        form = form_of(target)
        seconds, table = max(form.bracket_cost(target, N, c, t, req.n_runs) for t in req.ties)
        basis, proven = form.bracket_basis(target, c, req.ties)
        rel = req.max_rel_error
        return BoundedRoute(measure=m, N=N, c=c, kind="bounded", seconds=seconds, bytes=table, cache=req.cache,
                            exact=False, max_rel_error=rel,
                            basis=f"{basis}, within {rel:g} relative", proven=proven, grounds="bracket")


_PROVIDER = BoundedProvider()
register(_PROVIDER)


def reach_within(m: M.Measure, c: int, ties: str | None, rel_error: float) -> tuple[float, str]:
    """How deep the bounded route serves φ of ``m`` over grades 0..c with ``ties`` within ``rel_error``, and why not
    further (the refusal's words: the error reachable deeper, where a bracket reaches only a wider one)."""
    return _PROVIDER.reach_within(m, c, ties, rel_error)


def reachable_error(m: M.Measure, N: int, c: int, ties: str) -> float:
    """The least ``max_rel_error`` the bounded route reaches for φ of ``m`` at N within its budget (0: any it is
    asked; ∞: no bracket there)."""
    target = _bracketed(m, c)
    if N > _PROVIDER.reach_within(m, c, ties, math.inf)[0]:
        return math.inf
    return form_of(target).bracket_error(target, N, c, ties)
