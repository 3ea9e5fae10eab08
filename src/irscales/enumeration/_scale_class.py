"""The scale of a measure: all its distinct values over REL^N with their multiplicities (FFF21 §5).

:class:`Scale` holds the stored (or closed-form) chunks of a scale and reads the ranked measure
φ (eq. 2; §7.1.3's tie strategies) and the values at run quantiles (Figs. 3–5) off them chunk by
chunk. :func:`closed_form` gives the scales that need no enumeration (P, RR, RBP with p ≤ 1/2).
Built by :func:`irscales.enumeration.scale`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import numpy as np

from irscales import measures as M
from irscales.enumeration.forms import form_of
from irscales.enumeration._kernels import kernel
from irscales.enumeration._runs import CacheError, TieUndecidable, numerator, run_ids
from irscales.enumeration.ties import check_ties, tie_ranks
from irscales.options import DEFAULT_TIES, UNQ
from irscales._distinct import distinct

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Scale", "closed_form", "has_closed_form"]


@dataclass
class Scale:
    """All distinct values of a measure over REL^N with their multiplicities (FFF21 §5), in chunks.

    ``keys`` are the exact keys (int mode: integers; float mode: float64 in exact order) and
    ``values`` float64 values for display (for recall-base measures: the numerator divided by the
    topic's normaliser, see the module docstring). :meth:`phi` and :meth:`phi_runs` give the ranked
    measure, :meth:`quantiles` the values for "all possible values" plots; both work chunk by chunk.
    """

    measure: M.Measure
    N: int
    c: int
    mode: str
    chunks: list
    rb: float | None = None
    ideal: np.ndarray | None = None
    method: str = "engine"
    directory: Path | None = None
    key_kind: str = "key"  # "key" (kernel keys) or "runid" (closed form: keys are run ids)
    norm: float = field(default=1.0, repr=False)  # displayed values are divided by it (recall-base measures)
    denominator: Fraction = field(default=Fraction(1), repr=False)  # int mode: value = key / denominator

    def __post_init__(self):
        self.chunks = [ch for ch in self.chunks if ch.n_distinct]
        self._ndist = np.array([ch.n_distinct for ch in self.chunks], dtype=np.int64)
        self._nruns = np.array([ch.n_runs for ch in self.chunks], dtype=np.int64)
        self._off_d = np.concatenate([[0], np.cumsum(self._ndist)])
        self._off_r = np.concatenate([[0], np.cumsum(self._nruns)])
        self._last_key = np.array([ch.last for ch in self.chunks])
        # one vectorised call each (a closed-form RBP scale at N = 40 has 2^18 chunks)
        self._first_val = self._disp(np.array([ch.first for ch in self.chunks])) if self.chunks else np.empty(0)
        self._last_val = self._disp(self._last_key) if self.chunks else np.empty(0)
        self._cache: dict = {}

    def __repr__(self) -> str:
        return (f"Scale({self.measure.key}, N={self.N}, c={self.c}, n_distinct={self.n_distinct}, "
                f"n_runs={self.n_runs}, mode={self.mode!r}, method={self.method!r})")

    # -- sizes and arrays ----------------------------------------------------------------------
    @property
    def n_distinct(self) -> int:
        """|M(REL^N)|, the number of distinct values (φ of the largest value)."""
        return int(self._off_d[-1])

    @property
    def n_runs(self) -> int:
        return int(self._off_r[-1])

    def _disp(self, keys) -> np.ndarray:
        keys = np.asarray(keys)
        if self.key_kind == "runid":
            v = kernel(numerator(self.measure), self.N, self.c).float_of_ids(keys)
        else:  # the form reads its keys (RR's key is N + 1 − the first relevant rank)
            v = form_of(self.measure).float_values(keys, self.N, self.mode, self.denominator)
        return v / self.norm

    def _check_size(self):
        if self.n_distinct > 200_000_000:
            raise MemoryError(f"{self!r}: too many values to hold at once; iterate iter_chunks() "
                              "or use phi()/quantiles(), which work chunk by chunk")

    @property
    def keys(self) -> np.ndarray:
        self._check_size()
        return np.concatenate([ch.keys() for ch in self.chunks])

    @property
    def values(self) -> np.ndarray:
        """Sorted distinct values (float64, for display; the exact order is that of the keys)."""
        return self._disp(self.keys)

    @property
    def counts(self) -> np.ndarray:
        """Multiplicity of each distinct value: the number of runs taking it."""
        self._check_size()
        return np.concatenate([ch.counts() for ch in self.chunks])

    def iter_chunks(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(values, counts) chunk by chunk, in increasing order, in bounded memory."""
        for ch in self.chunks:
            yield self._disp(ch.keys()), ch.counts()

    def exact_values(self) -> list[Fraction]:
        """Exact values of a rational measure (int mode) as Fractions (small scales only)."""
        if self.mode != "int" or self.key_kind != "key":
            raise M.NotRationalError(f"{self!r}: exact values are available for integer-key scales only")
        norm = Fraction(1)
        if self.rb is not None and self.measure.divides_by == "rb/N":
            norm = Fraction(self.rb) / self.N  # the numerator is P = count/N
        elif self.rb is not None and self.measure.needs_rb:
            norm = Fraction(self.rb)
        return form_of(self.measure).exact_values(self.keys, self.N, self.denominator, norm)

    # -- ranks -----------------------------------------------------------------------------------
    def _cum(self, ci: int) -> np.ndarray:
        key = ("cum", ci)
        if key not in self._cache:
            if len(self._cache) > 8:
                self._cache.clear()
            self._cache[key] = np.cumsum(self.chunks[ci].counts())
        return self._cache[key]

    def _ranks(self, chunk: np.ndarray, pos: np.ndarray, ties: str) -> np.ndarray:
        """Ranks of the scale entries (chunk, position): ``unq`` = FFF21 eq. (2); ``min``/``max``/
        ``mid`` = rank among all runs sorted by value with ties at their min/max/average rank."""
        check_ties(ties)
        if ties == UNQ:
            return (self._off_d[chunk] + pos + 1).astype(np.int64)
        below = np.empty(len(pos), np.int64)
        upto = np.empty(len(pos), np.int64)
        for ci in distinct(chunk):
            s = chunk == ci
            cum = self._cum(int(ci))
            upto[s] = self._off_r[ci] + cum[pos[s]]
            below[s] = self._off_r[ci] + np.where(pos[s] > 0, cum[np.maximum(pos[s] - 1, 0)], 0)
        return tie_ranks(below, upto, None, ties)

    def phi(self, values, ties: str = DEFAULT_TIES, rtol: float = 1e-12) -> np.ndarray:
        """Ranked measure φ of float values of this measure (FFF21 eq. 2 with ties ``unq``).

        Each value must lie within ``rtol``·max(1, |largest value|) of exactly one value of the scale;
        otherwise ``ValueError`` says which input failed (not a value of the measure, or floats too
        close to tell two scale values apart — then use the exact :meth:`phi_runs`). That happens
        for long runs: at N = 30 distinct AP values can be 1/lcm(1..30) ≈ 4e-13 apart, distinct
        RBP_p08 values closer still, so float measure values cannot be ranked reliably there.
        """
        v = np.asarray(values, dtype=float)
        shape = v.shape
        v = v.reshape(-1)
        if not np.all(np.isfinite(v)):
            raise ValueError("phi: values must be finite numbers")
        tol = rtol * max(1.0, float(np.abs(self._last_val).max()), float(np.abs(self._first_val).max()))
        ci0 = np.clip(np.searchsorted(self._last_val, v - tol, "left"), 0, len(self.chunks) - 1)
        chunk = np.empty(len(v), np.int64)
        pos = np.empty(len(v), np.int64)
        for ci in distinct(ci0):
            s = np.nonzero(ci0 == ci)[0]
            hits = np.zeros(len(s), np.int64)
            for cj in (ci, ci + 1):  # a window [v − tol, v + tol] can reach into the next chunk
                if cj >= len(self.chunks):
                    continue
                vals = self._disp(self.chunks[cj].keys())
                lo = np.searchsorted(vals, v[s] - tol, "left")
                hi = np.searchsorted(vals, v[s] + tol, "right")
                n = hi - lo
                one = (n >= 1) & (hits == 0)
                chunk[s[one]], pos[s[one]] = cj, lo[one]
                hits += n
            if (hits == 0).any():
                i = s[np.nonzero(hits == 0)[0][0]]
                raise ValueError(f"phi: value {v[i]!r} (input index {i}) is not a value of "
                                 f"{self.measure.key} at N={self.N} (tolerance {tol:g})")
            if (hits > 1).any():
                i = s[np.nonzero(hits > 1)[0][0]]
                raise ValueError(f"phi: value {v[i]!r} (input index {i}) lies within {tol:g} of several values"
                                 f" of {self.measure.key}; floats cannot tell them apart: use phi_runs(rel)")
        return self._ranks(chunk, pos, ties).reshape(shape)

    def phi_runs(self, rel, ties: str = DEFAULT_TIES) -> np.ndarray:
        """Exact ranked measure of runs ``rel`` of shape (..., N) (grades 0..c), from exact keys: int64
        (``unq``, ``min``, ``max``; Python ints beyond int64) or, for ``mid``, float64 halves (Fractions
        beyond 2^52), as every φ of :mod:`irscales.enumeration.ties`."""
        rel = np.asarray(rel)
        if rel.ndim == 0 or rel.shape[-1] != self.N:
            raise ValueError(f"phi_runs: runs must have shape (..., {self.N}), got {rel.shape}")
        shape = rel.shape[:-1]
        ids = run_ids(rel.reshape(-1, self.N), self.c)
        ker = kernel(numerator(self.measure), self.N, self.c)
        if self.key_kind == "runid":
            key, ident = ids, None
        else:
            key, ident = ker.keys_of_ids(ids)
        chunk = np.minimum(np.searchsorted(self._last_key, key, "left"), len(self.chunks) - 1)
        pos = np.empty(len(key), np.int64)
        for ci in distinct(chunk):
            s = np.nonzero(chunk == ci)[0]
            kc = self.chunks[ci].keys()
            if ident is None:  # exact integer keys
                p = np.searchsorted(kc, key[s], "left")
                if np.any(p >= len(kc)) or np.any(kc[np.minimum(p, len(kc) - 1)] != key[s]):
                    raise CacheError(f"{self!r}: a run's exact key is missing from the scale (corrupt cache?)")
                pos[s] = p
                continue
            # float mode. A run's float is within δ/16 of its exact value and its entry's stored float
            # within [−δ/16, +δ/8 + δ/16] of it (the maximum.accumulate of reduce_chunk), so the entry
            # lies in [key − δ/2, key + δ/2]. Entries of one-identity clusters are > δ apart, so at most
            # one of them is that close; entries of multi-identity clusters are told apart by the
            # identities stored with them.
            lo = np.searchsorted(kc, key[s] - ker.delta / 2, "left")
            hi = np.searchsorted(kc, key[s] + ker.delta / 2, "right")
            multi = self.chunks[ci].multi
            mpos = dict(zip(multi[:, 1].tolist(), multi[:, 0].tolist())) if len(multi) else {}
            mset = set(mpos.values())
            easy = (hi - lo == 1) & ~np.isin(lo, multi[:, 0])
            pos[s[easy]] = lo[easy]
            for j in np.nonzero(~easy)[0].tolist():
                i = int(s[j])
                p = mpos.get(int(ident[i]))
                if p is not None and lo[j] <= p < hi[j]:
                    pos[i] = p
                    continue
                single = [q for q in range(int(lo[j]), int(hi[j])) if q not in mset]
                if len(single) != 1:
                    raise TieUndecidable(f"phi_runs: cannot place run {rel.reshape(-1, self.N)[i].tolist()}"
                                         f" among {hi[j] - lo[j]} near-equal scale values (corrupt cache?)")
                pos[i] = single[0]
        return self._ranks(chunk, pos, ties).reshape(shape)

    def quantiles(self, q) -> np.ndarray:
        """Values at run quantiles q ∈ [0, 1]: the value of the run at position ⌊q·(n_runs − 1)⌋
        when all runs are sorted by value (x axis of FFF21 Figs. 3–5), chunk by chunk."""
        q = np.asarray(q, dtype=float)
        if np.any((q < 0) | (q > 1)) or not np.all(np.isfinite(q)):
            raise ValueError("quantiles: q must lie in [0, 1]")
        r = np.floor(q.reshape(-1) * (self.n_runs - 1)).astype(np.int64)
        chunk = np.searchsorted(self._off_r[1:], r, "right")
        out = np.empty(len(r))
        for ci in distinct(chunk):
            s = chunk == ci
            j = np.searchsorted(self._cum(int(ci)), r[s] - self._off_r[ci], "right")
            out[s] = self._disp(self.chunks[ci].keys()[j])
        return out.reshape(q.shape)

    def to_frame(self) -> pd.DataFrame:
        """Distinct values, counts and φ (unq) as a pandas DataFrame (small scales)."""
        import pandas as pd
        return pd.DataFrame({"value": self.values, "count": self.counts,
                             "phi": np.arange(1, self.n_distinct + 1)})


def has_closed_form(measure: M.Measure) -> bool:
    """Whether :func:`closed_form` gives the binary scale of ``measure`` (at every N), without building it."""
    return form_of(measure).has_closed_form(measure)


def closed_form(measure: M.Measure, N: int) -> tuple[list, str] | None:
    """Closed-form scales: (chunks, key kind), or None — the form's
    (:meth:`irscales.enumeration.forms.Form.closed_form`):

    * P (and R): values k/N with multiplicity C(N, k).
    * RR: 0 once, and 1/k for the 2^{N−k} runs whose first relevant document is at rank k.
    * Succ: 0 once, 1 for the 2^N − 1 others.
    * RBP with p ≤ 1/2 (binary): rank i outweighs all later ranks together,
      p^{i−1} ≥ Σ_{j>i} p^{j−1} = p^i (1 − p^{N−i})/(1 − p) as p/(1 − p) ≤ 1, strictly since the sum
      is finite; so runs are ordered by their run id (the binary number rel_1 rel_2 … rel_N), every
      run has its own value, and φ(run) = run id + 1. (FFF21 §5 states φ(m) = 2^N m for p = 1/2; with
      eq. (2) counting the empty run's value 0 as φ = 1 it is 2^N m + 1, see the tests.)
    """
    if not has_closed_form(measure):
        return None
    return form_of(measure).closed_form(measure, N)
