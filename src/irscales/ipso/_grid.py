"""The universe of binary SERPs of length k and the relations among them (MM23 §2, Figs 1–3).

* :func:`all_serps` — the 2^k binary SERPs in lexicographic (= RBP(0.5)) order;
* :func:`relation_grid` — Algorithm 1 on every (row, column) pair (MM23 Figs 2 and 3);
* :func:`hasse_edges` — the covering pairs of ⪰ (MM23 Fig. 1);
* :func:`axis_order` / :func:`axis_tau` — SERPs placed on a metric's score axis, and Kendall's τ
  between two axes (MM23 Fig. 3), exactly;
* :func:`diagonal_blocks` — how often a small grid repeats along a larger grid's diagonal.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from irscales.correlation import kendall_counts
from irscales.ipso._compare import Relation, compare

__all__ = ["all_serps", "relation_grid", "hasse_edges", "diagonal_blocks", "axis_order", "axis_tau"]


def all_serps(k: int) -> np.ndarray:
    """All 2^k binary SERPs, shape (2^k, k), in lexicographic order (r1 most significant).

    Lexicographic order is the order of RBP(0.5) scores (MM23 §2 "Other score orderings").
    """
    if not 1 <= k <= 24:
        raise ValueError(f"all_serps enumerates 2^k SERPs; k must be in 1..24, got {k}")
    idx = np.arange(2**k, dtype=np.int64)
    return ((idx[:, None] >> np.arange(k - 1, -1, -1)) & 1).astype(np.int8)


def relation_grid(rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
    """Relation codes of every (row SERP, column SERP) pair: shape (len(rows), len(cols))
    (MM23 Figs 2 and 3: the row SERP is S1)."""
    rows = np.asarray(rows)
    cols = rows if cols is None else np.asarray(cols)
    return compare(rows[:, None, :], cols[None, :, :]).relation.copy()


def hasse_edges(serps: np.ndarray) -> list[tuple[int, int]]:
    """Covering pairs (i, j) of the partial order ⪰ on distinct SERPs: serps[i] ⪰ serps[j],
    i ≠ j, with no SERP strictly between (MM23 Fig. 1; arrows implied by transitivity dropped)."""
    g = relation_grid(serps)
    strict = g == Relation.NI
    via = (strict.astype(np.int64) @ strict.astype(np.int64)) > 0
    cover = strict & ~via
    return [(int(i), int(j)) for i, j in zip(*np.nonzero(cover))]


def diagonal_blocks(grid: np.ndarray, block: np.ndarray) -> int:
    """How many of the aligned diagonal blocks of ``grid`` equal ``block`` (MM23 §2, Fig. 3a)."""
    b, n = block.shape[0], grid.shape[0]
    return sum(
        bool(np.array_equal(grid[i : i + b, i : i + b], block)) for i in range(0, n - b + 1, b)
    )


def axis_order(scores: np.ndarray, tie_break: str = "lex", float_ties: str = "error") -> np.ndarray:
    """Axis position (0 = lowest score) of each SERP for an increasing-score axis.

    ``scores[i]`` belongs to ``all_serps(k)[i]``. Ties are broken by lexicographic (= RBP(0.5))
    order, ascending (``"lex"``) or descending (``"lex_desc"``); ``"lex"`` reproduces MM23's
    Fig. 3 τ values. Float scores must be separated by more than rounding error, else ValueError;
    with ``float_ties="snap"`` scores that close are *assumed* tied instead (used only for
    alternative readings of the paper, e.g. nDCG = 1 for every ideal SERP).
    """
    n = len(scores)
    lex = np.arange(n) if tie_break == "lex" else -np.arange(n)
    if tie_break not in ("lex", "lex_desc"):
        raise ValueError(f"tie_break must be 'lex' or 'lex_desc', got {tie_break!r}")
    vals = np.asarray(scores)
    if vals.dtype == object:
        order = sorted(range(n), key=lambda i: (vals[i], lex[i]))
    else:
        v = vals.astype(float)
        srt = np.sort(v)
        gaps = np.diff(srt)
        tol = 1e-12 * max(1.0, float(np.abs(v).max()))
        amb = (gaps > 0) & (gaps <= tol)
        if amb.any():
            if float_ties != "snap":
                raise ValueError("two float scores are within rounding error; cannot order them exactly")
            # map each run of near-equal sorted values onto the run's first value
            grp = np.concatenate([[0], np.cumsum(gaps > tol)])
            rep = srt[np.searchsorted(grp, grp, side="left")]
            v = rep[np.searchsorted(srt, v)]
        order = list(np.lexsort((lex, v)))
    pos = np.empty(n, dtype=np.int64)
    pos[np.asarray(order)] = np.arange(n)
    return pos


def axis_tau(rows_pos: np.ndarray, cols_pos: np.ndarray) -> Fraction:
    """Kendall τ of the diagonal ("equal", dark-blue) cells of a Fig. 3 pane: the concordance of
    each SERP's row position with its column position, τ = (P − Q) / (P + Q), exactly as a
    Fraction from the pair counts of :func:`irscales.correlation.kendall_counts` (axis positions
    are a permutation, so there are no ties)."""
    c = kendall_counts(np.asarray(rows_pos), np.asarray(cols_pos))
    p, q = int(c.concordant), int(c.discordant)
    if int(c.ties_x) or int(c.ties_y) or int(c.ties_both):
        raise ValueError("axis positions must be permutations (no ties)")
    return Fraction(p - q, p + q)
