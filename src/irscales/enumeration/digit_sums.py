"""Counting runs whose value is a weighted sum of their grades read as digits (issue 20, issue 30): the
closed-form counts behind φ of :mod:`irscales.enumeration.counting` for

* **grade sums** (P, R: c = 1; gP): the value grows with t = Σ g_i, and the runs of length N over grades
  0..c with sum j are the coefficient a_j of x^j in (1 + x + … + x^c)^N (:func:`grade_sum_prefix`,
  :func:`phi_grade_sums`);
* **graded RBP with p = 1/b and b ≤ c** (gRBP_p05 from three grades on): gRBP = (1 − p)/c · Σ g_i p^{i−1}
  = (1 − p)/(c·b^{N−1}) · K(r) with the integer key K(r) = Σ_i g_i b^{N−i} — the grades read as base-b
  digits, each digit allowed up to c ≥ b. Such runs *tie* (digits above b − 1 carry: (1, 0) and (0, b)
  both give K = b), so meet in the middle over run ids does not count values; but

  **every integer from 0 to M_N = c·(b^N − 1)/(b − 1) is a value, when c ≥ b − 1.** The keys of length n
  are S_n = b·S_{n−1} + {0..c}; if S_{n−1} = [0, M] then S_n is the union of the intervals [b·x, b·x + c],
  x = 0..M, which meet or overlap as consecutive x differ by b ≤ c + 1: S_n = [0, b·M + c]. With S_1 =
  [0, c], S_N = [0, M_N]. Hence **φ_unq = K(r) + 1**, exactly, at any N.

  Runs below and up to a key v (ties ``min``/``max``/``mid``) are counted by :func:`carry_counts`, a
  digit recursion over the ranks from the last (weight b^0) to the first (weight b^{N−1}): adding the
  next grade d to the carry k gives the output digit (d + k) mod b and the carry (d + k) div b (at most
  c div (b − 1)); the state holds the carry and how the digits output so far compare with v's lowest
  digits (a more significant digit decides). After N ranks, X = (digits) + carry·b^N: X < v when the
  carry is below v div b^N, or equal to it with the digits below. Exact integers, N·(c + 1)·(carries)·3
  vector steps over the distinct keys asked for: microseconds per run at N = 30.
"""

from __future__ import annotations

import numpy as np

from irscales.enumeration.ties import exact_ints, tie_ranks
from irscales.exact import to_fraction
from irscales.options import UNQ

__all__ = ["by_value", "phi_grade_sums"]


def grade_sum_prefix(N: int, c: int, qs) -> dict[int, int]:
    """Σ_{j<q} a_j for each q in ``qs`` (0 ≤ q ≤ cN + 1), where a_j is the number of runs of length N
    over grades 0..c with grade sum j: the coefficient of x^j in (1 + x + … + x^c)^N (c = 1: C(N, j)).

    One walk over j computes each coefficient from the previous c ones by
    j·a_j = Σ_{i=1..c} (N·i − j + i)·a_{j−i}, the coefficient of x^{j−1} in P·F' = N·P'·F for F = P^N,
    P = 1 + x + … + x^c (an exact division). By the symmetry a_j = a_{cN−j},
    Σ_{j<q} a_j = (c+1)^N − Σ_{j<cN+1−q} a_j, so the walk stops at the largest min(q, cN + 1 − q): at
    most cN/2 steps of c big-integer products, and only a few for sums near either end (sparse runs).
    """
    top = c * N
    qs = {int(q) for q in qs}
    if any(q < 0 or q > top + 1 for q in qs):
        raise ValueError(f"grade_sum_prefix: sums must lie in 0..{top + 1}")
    need = {min(q, top + 1 - q) for q in qs}
    far = max(need, default=0)
    small: dict[int, int] = {}
    last = [0] * c  # a_{j−1}, a_{j−2}, …, a_{j−c} (zero below j = 0)
    total = 0  # Σ_{i<j} a_i
    for j in range(far + 1):
        if j in need:
            small[j] = total
        if j == far:
            break
        a = 1 if j == 0 else sum((N * i - j + i) * last[i - 1] for i in range(1, c + 1)) // j
        total += a
        last = [a] + last[:-1]
    every = (c + 1) ** N
    return {q: small[q] if q <= top + 1 - q else every - small[top + 1 - q] for q in qs}


def by_value(values, inv: np.ndarray) -> np.ndarray:
    """``values`` (one exact int per distinct key) spread over the runs (``inv``)."""
    return exact_ints(np.array(values + [None], dtype=object)[:-1])[inv]


def phi_grade_sums(t: np.ndarray, N: int, c: int, ties: str) -> np.ndarray:
    """φ of runs with grade sums ``t`` for a measure increasing in the sum (P, R: c = 1; gP):
    φ_unq = t + 1, runs below = Σ_{j<t} a_j, runs up to = Σ_{j≤t} a_j (:func:`grade_sum_prefix`)."""
    if ties == UNQ:
        return exact_ints(t + 1)
    ut, inv = np.unique(t, return_inverse=True)
    pre = grade_sum_prefix(N, c, set(ut.tolist()) | set((ut + 1).tolist()))
    below = by_value([pre[int(q)] for q in ut], inv)
    upto = by_value([pre[int(q) + 1] for q in ut], inv)
    return tie_ranks(below, upto, None, ties)


def _keys(grades: np.ndarray, b: int) -> list[int]:
    """K(r) = Σ_i g_i b^{N−i} of each run (rows of ``grades``), as Python ints (Horner, rank by rank)."""
    keys = [0] * len(grades)
    for col in grades.T.tolist():
        keys = [k * b + g for k, g in zip(keys, col)]
    return keys


def carry_counts(grades: np.ndarray, b: int, c: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(runs below, runs up to, φ_unq) of each run of ``grades`` (n, N) over grades 0..c by its key
    K = Σ_i g_i b^{N−i} (module docstring; needs c ≥ b − 1 ≥ 1), among all (c+1)^N runs: exact ints."""
    grades = np.asarray(grades)
    n, N = grades.shape
    if not 2 <= b <= c + 1:
        raise ValueError(f"carry_counts needs 2 ≤ b ≤ c + 1 (every key a value), got b = {b}, c = {c}")
    keys = _keys(grades, b)
    distinct = sorted(set(keys))
    where = {k: i for i, k in enumerate(distinct)}
    inv = np.array([where[k] for k in keys], dtype=np.int64)
    big = (c + 1) ** N >= 2**62
    dtype = object if big else np.int64
    digits = np.zeros((N, len(distinct)), dtype=np.int64)
    high = []
    for q, v in enumerate(distinct):
        for j in range(N):
            v, digits[j, q] = divmod(v, b)
        high.append(v)
    high = np.array(high, dtype=object if big else np.int64)
    carries = c // (b - 1) + 1
    lt, eq, gt = 0, 1, 2
    state = np.zeros((len(distinct), carries, 3), dtype=dtype)
    state[:, 0, eq] = 1
    for j in range(N):  # rank N − j, weight b^j
        new = np.zeros_like(state)
        for k in range(carries):
            s_k = state[:, k, :]
            if not s_k.any():
                continue
            total = s_k.sum(axis=1)
            for d in range(c + 1):
                o, nk = (d + k) % b, (d + k) // b
                below_d, above_d, same_d = o < digits[j], o > digits[j], o == digits[j]
                new[:, nk, lt] += np.where(below_d, total, np.where(same_d, s_k[:, lt], 0))
                new[:, nk, gt] += np.where(above_d, total, np.where(same_d, s_k[:, gt], 0))
                new[:, nk, eq] += np.where(same_d, s_k[:, eq], 0)
        state = new
    k = np.arange(carries)
    lower = k[None, :] < high[:, None]
    at = k[None, :] == high[:, None]
    below = (np.where(lower, state.sum(axis=2), 0) + np.where(at, state[:, :, lt], 0)).sum(axis=1)
    upto = below + np.where(at, state[:, :, eq], 0).sum(axis=1)
    return (exact_ints(below)[inv], exact_ints(upto)[inv],
            exact_ints(np.array([v + 1 for v in distinct] + [None], dtype=object)[:-1])[inv])


def graded_rbp_tie(p, c: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Two runs of length 2 over grades 0..c with the same graded RBP at p = a/b (lowest terms), or
    None when there are none at any N (b > c; proof in the module docstring). Runs of length N > 2
    extended by zeros tie as well."""
    q = to_fraction(p)
    a, b = q.numerator, q.denominator
    if not 0 < q < 1:
        raise ValueError(f"graded RBP needs 0 < p < 1, got p={p!r}")
    return ((a, 0), (0, b)) if b <= c else None
