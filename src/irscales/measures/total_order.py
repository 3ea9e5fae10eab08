"""FFP19's interval-scale measures: the rank functions of its two total orders, as measures.

* :func:`sbto_rank` — FFP19 eq. (2)–(3): ρ(r̂) = Σ_j C(δ(r̂_j) + N − j, N − j + 1) with the degrees
  sorted decreasingly, the rank of r̂ in the set-based total order (eq. 1).
* :func:`rbto_rank` — FFP19 eq. (5)–(6): ρ(r̂) = Σ_i δ(r̂_i)(c + 1)^{N−i}, the run read as a base-(c+1)
  number, its rank in the strong top-heaviness order (eq. 4).

These are the one computation of both: the measures :class:`SBTO` and :class:`RBTO` and the orders
:class:`irscales.theory.orders.SetBased` and :class:`~irscales.theory.orders.StrongTopHeaviness`
(whose ``rank`` validates the runs first) call them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import ClassVar

import numpy as np

from irscales.measures.base import Measure, check_grades

__all__ = ["SBTO", "RBTO"]


@lru_cache(maxsize=64)
def _comb_table(n: int, c: int) -> np.ndarray:
    """table[d, j-1] = C(d + N − j, N − j + 1) for d = 0..c, j = 1..N."""
    t = np.array([[math.comb(d + n - j, n - j + 1) for j in range(1, n + 1)] for d in range(c + 1)],
                 dtype=object)
    # C(c + N - 1, N) is the largest entry; keep int64 while the sum of N of them fits
    return t.astype(np.int64) if n * math.comb(c + n - 1, n) < 2**62 else t


def _degrees(runs) -> np.ndarray:
    a = np.asarray(runs, dtype=np.int64)
    if a.size and a.min() < 0:
        raise ValueError(f"relevance degrees must be ≥ 0, found {int(a.min())}")
    return a


def sbto_rank(runs, c: int) -> np.ndarray:
    """FFP19 eq. (2)–(3) along the last axis of integer degrees ``runs`` (top degree ``c``; higher
    degrees are counted as they come): int64, or Python ints in an object array when huge."""
    g = -np.sort(-_degrees(runs), axis=-1)
    n = g.shape[-1]
    table = _comb_table(n, max(int(c), int(g.max(initial=0))))
    j = np.broadcast_to(np.arange(n), g.shape)
    return table[g, j].sum(-1)


def rbto_rank(runs, c: int) -> np.ndarray:
    """FFP19 eq. (5)–(6) along the last axis of integer degrees ``runs``: Σ_i δ(r̂_i)(c + 1)^{N−i},
    int64, or Python ints in an object array when huge."""
    a = _degrees(runs)
    n = a.shape[-1]
    top = int(a.max(initial=0))
    bound = (c + 1) ** n if top <= c else top * (c + 1) ** n
    if bound >= 2**62:
        w = np.array([(c + 1) ** (n - i) for i in range(1, n + 1)], dtype=object)
        return a.astype(object) @ w
    w = (c + 1) ** np.arange(n - 1, -1, -1, dtype=np.int64)
    return a @ w


@dataclass(frozen=True, repr=False)
class SBTO(Measure, names=()):
    """Set-Based Total Order measure (FFP19 Def. 2, eq. 3), grades 0..c:

    SBTO(r) = Σ_{j=1}^{N} C(δ(r_j) + N − j, N − j + 1), with the grades sorted decreasingly.
    The rank of r in the set-based total order (eq. 1); for c = 1 it is the number of relevant
    documents. Computed by :func:`sbto_rank`.
    """

    c: int = 1
    family: ClassVar[str] = "SBTO"
    binary: ClassVar[bool] = False

    def __post_init__(self):
        check_grades("SBTO", "c", self.c)

    def _compute(self, rel, rb=None, ideal=None):
        return np.asarray(sbto_rank(rel.astype(np.int64), self.c), dtype=float)

    def _exact_one(self, row, rb):
        return Fraction(int(sbto_rank(np.array([row], dtype=float).astype(np.int64), self.c)[0]))


@dataclass(frozen=True, repr=False)
class RBTO(Measure, names=()):
    """Rank-Based Total Order measure (FFP19 Def. 3, eq. 6): RBTO(r) = Σ_i δ(r_i) (c+1)^{N−i},
    the run's grades read as a base-(c+1) number (strong top-heaviness order, eq. 4). Computed by
    :func:`rbto_rank`.
    """

    c: int = 1
    family: ClassVar[str] = "RBTO"
    binary: ClassVar[bool] = False
    form: ClassVar[str] = "additive"

    def __post_init__(self):
        check_grades("RBTO", "c", self.c)

    def integer_weights(self, N: int, c: int) -> tuple[list[int], Fraction]:
        """(c+1)^{N−i}: the run read as a base-(c+1) number, over 1; only over this measure's own grades 0..c."""
        if self.c != c:
            raise ValueError(f"{self!r} enumerated with c={c}: use the same number of grades")
        return [(c + 1) ** (N - 1 - i) for i in range(N)], Fraction(1)

    def _compute(self, rel, rb=None, ideal=None):
        return np.asarray(rbto_rank(rel.astype(np.int64), self.c), dtype=float)

    def _exact_one(self, row, rb):
        return Fraction(int(rbto_rank(np.array([row], dtype=float).astype(np.int64), self.c)[0]))
