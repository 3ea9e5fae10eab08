"""Measure kernels of the enumeration engine: exact keys of half runs (FFF21 §5; engine overview in
:mod:`irscales.enumeration`).

A run splits into its top half (ranks 1..h, id ``a``) and bottom half (ranks h+1..N, id ``b``); for
every supported measure the value is ``A[a] + B_g[b]`` for a group ``g`` of top halves (one group for
additive measures such as P, RBP, DCG; the popcount of the top half for SP, since SP = SP_top +
SP_bottom + k·Σ_{bottom, rel} 1/i; two groups for RR). Half runs with the same exact half value are
merged into one entry with a multiplicity, and the entry pairs whose values lie in a key range
[t0, t1) are found per bottom entry by binary search in the sorted top entries.

* *Integer mode* (P, R, RR, SP/AP, RBP p = a/b while Σ a^{i−1} b^{N−i} fits in 62 bits, RBTO, gP): the
  key is an exact integer (P, R: relevant documents; RR: N + 1 − rank of the first relevant one;
  SP·lcm(1..N); RBP·b^{N−1}/(1−p) = Σ rel_i a^{i−1} b^{N−i}).
* *Float mode* (DCG, nDCG, and binary RBP when its integer key exceeds 62 bits): float64 keys with an
  error bound δ (:attr:`Kernel.delta`) and an exact integer *identity* per run with "same identity ⇒
  same value" (the run id for RBP, which never ties; the packed coefficient vector of
  :mod:`irscales.enumeration._dcg` for DCG). Near-tie clusters with several identities are ordered
  exactly (:meth:`Kernel.adjudicate`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from irscales import measures as M
from irscales.enumeration.forms import form_of
from irscales.enumeration._runs import TieUndecidable, runs_from_ids

__all__ = ["Kernel", "Group", "kernel", "kernel_mode", "supported", "chunk_task", "BYTES_PER_RUN"]

BYTES_PER_RUN = 96  # peak bytes per enumerated (top, bottom) pair in a chunk task (keys, sort buffers)

@dataclass
class Group:
    """Runs whose value is a_key[i] + b_key[j]: the distinct top halves (sorted by key) and the
    distinct bottom halves of one group, with how many half runs share each entry."""

    a_ids: np.ndarray  # all top-half run ids in this group
    a_pos: np.ndarray  # for each of a_ids, its entry in a_key
    a_key: np.ndarray  # int64 or float64, sorted, distinct entries
    a_mult: np.ndarray  # half runs per entry
    b_pos: np.ndarray  # for every bottom-half id, its entry in b_key
    b_key: np.ndarray
    b_mult: np.ndarray
    a_ident: np.ndarray | None = None  # float mode: exact identity parts of the entries
    b_ident: np.ndarray | None = None

    @property
    def pairs(self) -> int:
        return len(self.a_key) * len(self.b_key)


def _dedupe(key: np.ndarray, ident: np.ndarray | None):
    """Distinct half runs: (entry of each input, entry keys sorted, multiplicities, identities).

    Int mode dedupes on the exact key; float mode on the exact identity (equal identity ⇒ equal
    exact value), keeping the smallest float of each identity so the result is deterministic.
    """
    by = key if ident is None else ident
    u, inv, mult = np.unique(by, return_inverse=True, return_counts=True)
    if ident is None:
        return inv, u, mult, None
    fk = np.full(len(u), np.inf)
    np.minimum.at(fk, inv, key)
    order = np.argsort(fk, kind="stable")
    rank = np.empty(len(u), np.int64)
    rank[order] = np.arange(len(u))
    return rank[inv], fk[order], mult[order], u[order]


def _gains(digits: np.ndarray, graded: bool) -> np.ndarray:
    return digits.astype(np.int64) if graded else (digits > 0).astype(np.int64)


def supported(measure: M.Measure) -> bool:
    """Whether the chunked engine has a kernel for this measure (its numerator's form has one,
    :mod:`irscales.enumeration.forms`)."""
    return form_of(measure).has_kernel


class Kernel:
    """Half tables of one (measure, N, c); built once per process (see :func:`kernel`).

    ``mode`` is ``"int"`` (exact int64 keys) or ``"float"`` (float64 keys + int64 identities). The keys are the
    form's (:meth:`irscales.enumeration.forms.Form.build_kernel`), built with :meth:`additive_int`,
    :meth:`float_keys` or :meth:`set_groups`.
    """

    def __init__(self, measure: M.Measure, N: int, c: int, int_bits: int = 62):
        if N < 1:
            raise ValueError(f"run length N must be ≥ 1, got {N}")
        if c < 1:
            raise ValueError(f"the number of relevance grades above 0 must be c ≥ 1, got {c}")
        if not supported(measure):
            raise NotImplementedError(
                f"no enumeration kernel for {measure!r}; supported: P, R, SP, AP, RR, Succ, RBP, gRBP, DCG, nDCG,"
                " RBTO, gP (use brute_force_scale for small N)")
        if (c + 1) ** N > 2**62:
            raise ValueError(f"{c + 1}^{N} runs exceed the 62-bit run ids of the engine")
        self.measure, self.N, self.c = measure, N, c
        self.base = c + 1
        self.h = (N + 1) // 2
        self.nb = self.base ** (N - self.h)
        na = self.base**self.h
        a_dig = runs_from_ids(np.arange(na), self.h, c)
        b_dig = runs_from_ids(np.arange(self.nb), N - self.h, c)
        self.denominator: Fraction = Fraction(1)  # int mode: value = key / denominator
        # grades enter as gains only for graded measures; binary ones read rel > 0 (lenient, FFF21 §6)
        graded = c > 1 and measure.numerator().reads_grades
        form_of(measure).build_kernel(self, a_dig, b_dig, graded, int_bits)
        self.is_int = self.mode == "int"

    # -- what a form builds its keys with ------------------------------------------------------------------

    def set_groups(self, mode: str, groups: list[Group], denominator: Fraction = Fraction(1)) -> None:
        """The kernel's groups of (top, bottom) entries (:meth:`group`), its ``mode`` and, in int mode, the
        denominator of its keys (value = key / denominator)."""
        self.mode, self.groups, self.denominator = mode, groups, denominator

    def group(self, a_ids, ak, bk, ai=None, bi=None) -> Group:
        """One :class:`Group`: top halves ``a_ids`` with keys ``ak``, every bottom half with key ``bk`` (float mode:
        identities ``ai``, ``bi``), each side merged into distinct entries."""
        a_pos, a_key, a_mult, a_ident = _dedupe(ak, ai)
        b_pos, b_key, b_mult, b_ident = _dedupe(bk, bi)
        return Group(np.asarray(a_ids, np.int64), a_pos, a_key, a_mult, b_pos, b_key, b_mult, a_ident, b_ident)

    def additive_int(self, a_dig, b_dig, w, graded: bool, denominator: Fraction) -> None:
        """Exact int64 keys Σ_i g_i·w_i of integer rank weights ``w`` (value = key / ``denominator``), one group."""
        wa = np.array(w[: self.h], dtype=np.int64)
        wb = np.array(w[self.h :], dtype=np.int64)
        ak = _gains(a_dig, graded) @ wa
        bk = _gains(b_dig, graded) @ wb
        self.set_groups("int", [self.group(np.arange(len(ak)), ak, bk)], denominator)

    def float_keys(self, a_dig, b_dig, wf, ident, graded: bool, vmax: float,
                   exact_of_ident: Callable[[Sequence[int], int], list], denominator: Fraction = Fraction(1)) -> None:
        """Float64 keys Σ_i g_i·wf_i with an exact integer identity Σ_i g_i·ident_i per run ("same identity ⇒ same
        value"), one group; ``vmax`` bounds the values, ``exact_of_ident(identities, digits)`` gives exact values
        (Fractions, or Decimals at ``digits`` digits) that order a near-tie cluster (:meth:`adjudicate`)."""
        self.mode = "float"
        wf = np.asarray(wf, dtype=float)
        ident = np.asarray(ident, dtype=np.int64)
        ga, gb = _gains(a_dig, graded), _gains(b_dig, graded)
        ak = ga.astype(float) @ wf[: self.h]
        bk = gb.astype(float) @ wf[self.h :]
        ai = ga @ ident[: self.h]
        bi = gb @ ident[self.h :]
        # Error bound: weights carry a relative error ≤ 3ε (a log, a division, a product), a sum of
        # N non-negative terms adds ≤ (N − 1)ε·Σ (any order, FMA or not), the a + b join one more ε:
        # |fl(value) − value| ≤ (N + 3)ε·vmax. δ is 16 times (N + 4)ε·vmax, so floats farther apart
        # than δ are ordered correctly, and each float is within δ/16 of its exact value.
        self.delta = 16.0 * (self.N + 4) * np.finfo(float).eps * max(vmax, 1.0)
        self.set_groups("float", [self.group(np.arange(len(ak)), ak, bk, ai, bi)], denominator)
        self.exact_of_ident = exact_of_ident

    # -- exact adjudication (float mode) ------------------------------------------------------------

    def adjudicate(self, idents: list[int]) -> list[int]:
        """Sort distinct identities by exact value; returns them in increasing order."""
        uniq = sorted(set(int(x) for x in idents))
        if len(uniq) == 1:
            return uniq
        for digits in (60, 120):
            vals = self.exact_of_ident(uniq, digits)
            order = sorted(range(len(uniq)), key=lambda i: vals[i])
            if isinstance(vals[0], Fraction):
                if any(vals[order[i]] == vals[order[i + 1]] for i in range(len(order) - 1)):
                    raise AssertionError("binary RBP produced a tie between distinct runs")  # proven impossible
                return [uniq[i] for i in order]
            tol = Decimal(10) ** (-(digits - 5))
            if all(vals[order[i + 1]] - vals[order[i]] > tol for i in range(len(order) - 1)):
                return [uniq[i] for i in order]
        raise TieUndecidable(
            f"{self.measure!r}, N={self.N}: identities {uniq} have values within 1e-115 of each other; "
            "distinct exact coefficient vectors could not be separated")

    # -- enumeration of a key range ------------------------------------------------------------------

    def key_bounds(self) -> tuple:
        lo = min(g.a_key[0] + g.b_key.min() for g in self.groups if len(g.a_key))
        hi = max(g.a_key[-1] + g.b_key.max() for g in self.groups if len(g.a_key))
        return lo, hi

    def gather(self, t0, t1):
        """Keys, identities (float mode) and multiplicities of all (top, bottom) entry pairs with
        key in [t0, t1) (None = unbounded); a pair stands for a_mult·b_mult runs."""
        keys, idents, mults = [], [], []
        slack = 0 if self.is_int else self.delta
        for g in self.groups:
            if not len(g.a_key):
                continue
            lo = (np.zeros(len(g.b_key), np.int64) if t0 is None
                  else np.searchsorted(g.a_key, t0 - g.b_key - slack, "left"))
            hi = (np.full(len(g.b_key), len(g.a_key), np.int64) if t1 is None
                  else np.searchsorted(g.a_key, t1 - g.b_key + slack, "left"))
            n = np.maximum(hi - lo, 0)
            tot = int(n.sum())
            if tot == 0:
                continue
            bidx = np.repeat(np.arange(len(g.b_key)), n)
            apos = np.arange(tot) + np.repeat(lo - np.concatenate([[0], np.cumsum(n)[:-1]]), n)
            k = g.a_key[apos] + g.b_key[bidx]
            sel = None
            if not self.is_int:  # membership decided by the float sum itself, consistently
                sel = np.ones(tot, bool)
                if t0 is not None:
                    sel &= k >= t0
                if t1 is not None:
                    sel &= k < t1
                apos, bidx, k = apos[sel], bidx[sel], k[sel]
                idents.append(g.a_ident[apos] + g.b_ident[bidx])
            keys.append(k)
            mults.append(g.a_mult[apos] * g.b_mult[bidx])
        dt = np.int64 if self.is_int else np.float64
        cat = (lambda xs, d: np.concatenate(xs) if xs else np.empty(0, d))
        return cat(keys, dt), (cat(idents, np.int64) if not self.is_int else None), cat(mults, np.int64)

    def keys_of_ids(self, ids: np.ndarray):
        """Keys (float mode: also identities) of the given run ids, computed as in :meth:`gather`."""
        ids = np.asarray(ids, dtype=np.int64)
        if np.any((ids < 0) | (ids >= self.base**self.N)):
            raise ValueError(f"run ids must lie in [0, {self.base ** self.N})")
        if not hasattr(self, "_a_group"):
            na = self.base**self.h
            self._a_group = np.full(na, -1, np.int64)
            self._a_pos = np.zeros(na, np.int64)
            for gi, g in enumerate(self.groups):
                self._a_group[g.a_ids] = gi
                self._a_pos[g.a_ids] = g.a_pos
        a, b = ids // self.nb, ids % self.nb
        gi, pa = self._a_group[a], self._a_pos[a]
        key = np.zeros(ids.shape, dtype=np.int64 if self.is_int else float)
        ident = None if self.is_int else np.zeros(ids.shape, np.int64)
        for j, g in enumerate(self.groups):
            s = gi == j
            pb = g.b_pos[b[s]]
            key[s] = g.a_key[pa[s]] + g.b_key[pb]
            if ident is not None:
                ident[s] = g.a_ident[pa[s]] + g.b_ident[pb]
        return key, ident

    def float_of_ids(self, ids: np.ndarray) -> np.ndarray:
        """Float values of run ids (display)."""
        key, _ = self.keys_of_ids(ids)
        return key.astype(float) / float(self.denominator) if self.is_int else key

    # -- one chunk: sorted distinct values with counts --------------------------------------------

    def reduce_chunk(self, t0, t1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Distinct keys in [t0, t1) in increasing exact order, their multiplicities, and (float
        mode) the (position, identity) pairs of the entries that came from multi-identity clusters,
        which :meth:`Scale.phi_runs` needs to place a run exactly among near-equal values."""
        k, ident, mult = self.gather(t0, t1)
        no_multi = np.empty((0, 2), np.int64)
        if self.is_int:
            if np.all(mult == 1):
                u, cnt = np.unique(k, return_counts=True)
                return u, cnt.astype(np.int64), no_multi
            order = np.argsort(k)
            k, mult = k[order], mult[order]
            starts = np.flatnonzero(np.concatenate([[True], k[1:] != k[:-1]])) if len(k) else np.empty(0, np.int64)
            return k[starts], np.add.reduceat(mult, starts) if len(k) else mult, no_multi
        # the order inside a near-tie cluster is irrelevant (clusters are reduced to identity sets),
        # so sorting the floats alone suffices
        order = np.argsort(k)
        k, ident, mult = k[order], ident[order], mult[order]
        del order
        if not len(k):
            return k, np.empty(0, np.int64), no_multi
        new_cluster = np.concatenate([[True], np.diff(k) > self.delta])
        starts = np.nonzero(new_cluster)[0]
        imin = np.minimum.reduceat(ident, starts)
        imax = np.maximum.reduceat(ident, starts)
        sizes = np.add.reduceat(mult, starts)  # runs per cluster
        vals = k[starts]  # smallest float of a one-identity cluster (deterministic)
        out_v, out_c, multi = [], [], []
        prev, n_out = 0, 0
        for ci in np.nonzero(imin != imax)[0]:  # clusters with several identities: exact order
            out_v.append(vals[prev:ci])
            out_c.append(sizes[prev:ci])
            n_out += ci - prev
            s, e = starts[ci], (starts[ci + 1] if ci + 1 < len(starts) else len(k))
            ids_c, inv_c = np.unique(ident[s:e], return_inverse=True)
            counts = dict(zip(ids_c.tolist(), np.bincount(inv_c, weights=mult[s:e]).astype(np.int64).tolist()))
            mins: dict = {}
            for x, i in zip(k[s:e].tolist(), ident[s:e].tolist()):
                mins[i] = min(mins.get(i, x), x)
            ordered = self.adjudicate(list(counts))
            # floats of exactly ordered values must be non-decreasing for searchsorted
            out_v.append(np.maximum.accumulate(np.array([mins[i] for i in ordered])))
            out_c.append(np.array([counts[i] for i in ordered], dtype=np.int64))
            multi.extend((n_out + j, i) for j, i in enumerate(ordered))
            n_out += len(ordered)
            prev = ci + 1
        out_v.append(vals[prev:])
        out_c.append(sizes[prev:])
        multi_arr = np.array(multi, dtype=np.int64).reshape(-1, 2)
        return np.concatenate(out_v), np.concatenate(out_c).astype(np.int64), multi_arr

    def snap(self, t: float) -> float:
        """A float cut point near t lying in a gap wider than 2δ between run values."""
        lo, hi = self.key_bounds()
        eps = max((hi - lo) * 2.0**-24, 64 * self.delta)
        for _ in range(60):
            k, _, _ = self.gather(t - eps, t + eps)
            if len(k) > 200_000:
                eps /= 8
                continue
            pts = np.unique(np.concatenate([[t - eps], k, [t + eps]]))
            gaps = np.diff(pts)
            j = int(np.argmax(gaps))
            if gaps[j] > 4 * self.delta:
                return float(pts[j] + gaps[j] / 2)
            eps *= 4
        raise TieUndecidable(f"no gap wider than 4δ near {t} for {self.measure!r}, N={self.N}")


def kernel_mode(measure: M.Measure, N: int, c: int, int_bits: int = 62) -> str:
    """The ``mode`` of ``Kernel(measure, N, c)`` without building its tables (for cache paths and costs):
    ``"float"`` for DCG/nDCG and for binary RBP whose exact key Σ a^{i−1} b^{N−i} reaches 2^int_bits, else
    ``"int"`` (the form's :meth:`~irscales.enumeration.forms.Form.kernel_mode`)."""
    return form_of(measure).kernel_mode(measure, N, c, int_bits)


@functools.lru_cache(maxsize=8)
def kernel(measure: M.Measure, N: int, c: int) -> Kernel:
    """The :class:`Kernel` of (measure, N, c), built once per process."""
    return Kernel(measure, N, c)


def chunk_task(measure: M.Measure, N: int, c: int, t0, t1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pure chunk task: distinct keys in [t0, t1), counts, multi-identity entries (see reduce_chunk)."""
    return kernel(measure, N, c).reduce_chunk(t0, t1)

