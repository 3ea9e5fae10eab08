"""The enumeration engine: the chunk planner, the local-process / dask runner, and what a build costs.

The key axis of a :class:`~irscales.enumeration._kernels.Kernel` is cut into chunks that fit a memory
budget (:func:`plan`); each chunk is a pure task (:func:`~irscales.enumeration._kernels.chunk_task`)
run in this process, in worker processes or on a ``dask.distributed`` client, and stored in the
chunk cache (:mod:`irscales.enumeration._cache`) as soon as it is done, so an interrupted build
resumes. :func:`max_enumerable_depth` and :func:`build_cost` say how far and at what cost.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from irscales import measures as M
from irscales.enumeration._cache_lock import CacheLock
from irscales.enumeration._cache import (
    Chunk, atomic_json, atomic_save, cache_path, cache_path_for, counts_dtype, jsonable, load_chunk, params, params_for)
from irscales.enumeration.forms import form_of
from irscales.enumeration._kernels import BYTES_PER_RUN, Kernel, chunk_task, kernel_mode, supported
from irscales.enumeration._runs import numerator
from irscales.enumeration._workers import worker_pool
from irscales.enumeration._scale_class import has_closed_form
from irscales._progress import bar as progress_bar
from irscales._progress import shown

__all__ = ["plan", "run_engine", "refuse_beyond", "max_enumerable_depth", "BuildCost", "build_cost",
           "build_estimate", "human_seconds", "human_bytes"]


def plan(ker: Kernel, memory_mb: int, workers: int) -> list:
    """Chunk ranges [t0, t1) of the key axis, each holding about memory_mb/workers worth of runs.

    The unit of work is a pair (distinct top half, distinct bottom half) of one group (see
    :class:`~irscales.enumeration._kernels.Group`). Cut points are quantiles of the keys of a fixed pseudo-random sample of pairs
    (seeded, so the plan is reproducible; it is also stored in the manifest), aiming at 80% of the
    budget so that sampling error does not push a chunk over it. Float cut points are moved into gaps wider than
    4δ between run values, so that no near-tie cluster is split between two chunks.
    """
    total = sum(g.pairs for g in ker.groups)  # (top, bottom) entry pairs, the unit of work
    per = max(1 << 12, int(0.8 * memory_mb * 2**20 / (BYTES_PER_RUN * max(workers, 1))))
    n = max(1, -(-total // per))
    if n == 1:
        return [(None, None)]
    rng = np.random.default_rng(20210101)
    size = max(1 << 16, 256 * n)
    sizes = np.array([g.pairs for g in ker.groups], dtype=float)
    gi = rng.choice(len(ker.groups), size=size, p=sizes / sizes.sum())
    keys = []
    for j, g in enumerate(ker.groups):
        m = int((gi == j).sum())
        if m:
            keys.append(g.a_key[rng.integers(0, len(g.a_key), m)] + g.b_key[rng.integers(0, len(g.b_key), m)])
    keys = np.sort(np.concatenate(keys))
    qs = keys[(np.arange(1, n) * len(keys)) // n]
    cuts = [None]
    for t in qs:
        t = int(t) if ker.is_int else ker.snap(float(t))
        if cuts[-1] is None or t > cuts[-1]:
            cuts.append(t)
    cuts.append(None)
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]



def run_engine(ker: Kernel, cache, memory_mb: int, workers: int | None, client, progress: bool | None,
               verify: str) -> tuple[list[Chunk], Path | None]:
    """Every chunk of ``ker``'s scale (computed, or read from the cache folder of ``cache``) and that folder."""
    if verify not in ("full", "size"):
        raise ValueError(f"verify must be 'full' or 'size', got {verify!r}")
    d = cache_path(ker, cache)
    if d is None:
        return _run_engine_locked(ker, None, memory_mb, workers, client, progress, verify)
    d.mkdir(parents=True, exist_ok=True)
    # one writer per cache folder: a second process computing the same scale waits (saying for whom),
    # then reads it; a lock left by a dead owner is taken over (irscales.enumeration._cache_lock)
    with CacheLock(d):
        for tmp in d.glob("*.tmp"):  # half-written files of a writer that was killed: only the lock holder writes
            tmp.unlink(missing_ok=True)
        return _run_engine_locked(ker, d, memory_mb, workers, client, progress, verify)


def _run_engine_locked(ker, d, memory_mb, workers, client, progress, verify):
    workers = workers if workers is not None else min(2, os.cpu_count() or 1)
    manifest = None
    if d is not None:
        mp = d / "manifest.json"
        if mp.exists():
            try:
                manifest = json.loads(mp.read_text())
            except json.JSONDecodeError:
                manifest = None
            if manifest is not None and manifest.get("params") != params(ker):
                manifest = None  # stale: written by other parameters or another kernel version
    if manifest is None:
        chunks = plan(ker, memory_mb, workers)
        manifest = {"params": params(ker), "chunks": [
            {"t0": jsonable(a), "t1": jsonable(b), "done": False} for a, b in chunks]}
        if d is not None:
            atomic_json(manifest, d / "manifest.json")
    entries = manifest["chunks"]
    results: dict[int, tuple] = {}
    todo = []
    for i, e in enumerate(entries):
        if e.get("done") and d is not None:
            got = load_chunk(d, e, verify)
            if got is not None:
                results[i] = got
                continue
            e["done"] = False  # corrupt or missing: recompute
        todo.append(i)

    def store(i, res):
        keys, cnt, multi = res
        n_runs = int(cnt.sum(dtype=np.int64))
        cnt = None if (len(cnt) == 0 or cnt.max() == 1) else cnt.astype(counts_dtype(cnt))
        if d is None:
            results[i] = Chunk(keys, cnt, n_runs=n_runs, multi=multi)
            return
        e = entries[i]
        for name, arr in (("keys", keys), ("counts", cnt), ("multi", multi if len(multi) else None)):
            if arr is None:
                e[name] = e[name + "_sha256"] = None
            else:
                e[name] = f"chunk{i:05d}_{name}.npy"
                e[name + "_sha256"] = atomic_save(arr, d / e[name])
        e["n_distinct"], e["n_runs"], e["n_multi"], e["done"] = int(len(keys)), n_runs, int(len(multi)), True
        atomic_json(manifest, d / "manifest.json")  # the chunk counts as done only after this
        results[i] = load_chunk(d, e, "size")

    bar = _progress(len(todo), progress, f"{ker.measure.key} N={ker.N}")
    args = [(ker.measure, ker.N, ker.c, _unjson(entries[i]["t0"], ker), _unjson(entries[i]["t1"], ker))
            for i in todo]
    try:
        if client is not None:
            futs = [client.submit(chunk_task, *a, pure=True) for a in args]
            for i, f in zip(todo, futs):
                store(i, f.result())
                bar.update(1)
        elif workers <= 1 or len(todo) <= 1:
            for i, a in zip(todo, args):
                store(i, chunk_task(*a))
                bar.update(1)
        else:
            from concurrent.futures import FIRST_COMPLETED, wait

            with worker_pool(workers) as ex:  # workers end with this process; none holds the lock
                # at most workers + 1 chunks in flight, so finished results never pile up in memory
                pending, queue = {}, list(zip(todo, args))[::-1]
                while queue or pending:
                    while queue and len(pending) < workers + 1:
                        i, a = queue.pop()
                        pending[ex.submit(chunk_task, *a)] = i
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        store(pending.pop(f), f.result())
                        bar.update(1)
    finally:
        bar.close()
    return [results[i] for i in range(len(entries))], d


def _unjson(x, ker):
    if x is None:
        return None
    return int(x) if ker.is_int else float(x)


def _progress(total: int, progress: bool | None, desc: str):
    return progress_bar(total, desc, shown(None) and total > 1 if progress is None else progress)


# ------------------------------------------------------------------------------ limits and costs

_TABLE_MAX = 2**20  # half-run tables (c+1)^⌈N/2⌉ entries: 2^20 (binary N = 40) take ~0.5 GB to build
# engine wall time per enumerated run on 2 cores: each form's (Form.build_rate), from the N = 30 benchmark
# (docs/benchmarks.md: AP via SP 81 s, RBP_p08 149 s, DCG_b02 380 s for 2^30 runs), rounded up. AP's rate is the
# shared machine's (issue 37: the N = 27 build took 80 s, 6e-7 s per run, against an estimate of 13 s): builds at
# N = 22-26 under load ≈ 6 took 2.3-4.0e-7 s per run, so an estimate from 6e-7 is an upper bound there.
_BYTES_PER_VALUE = 8.5  # cache bytes per distinct value (N = 30: RBP_p08 8.1 GB for 2^30 values)
_BUILD_OVERHEAD = 0.05  # seconds of any build: half tables, chunk plan, manifest and file syncs


def refuse_beyond(measure: M.Measure, N: int, limit: int, why: str) -> None:
    """Refuse, with the reason, a run length beyond what the engine can enumerate for ``measure``."""
    if N > limit:
        if limit == 0:
            raise NotImplementedError(why)
        raise ValueError(f"no scale of {measure.key} at N={N} (at most N={limit}): {why}")


def max_enumerable_depth(measure: M.Measure, c: int = 1) -> tuple[int, str]:
    """The largest run length N whose scale (and ranked version) this engine can compute for
    ``measure`` with grades 0..c, and the reason it cannot go further. 0 when it has no kernel.

    This is what is *representable*; the time and disk a build takes are :func:`build_cost`'s.
    """
    num = numerator(measure)
    if not supported(num):
        return 0, (f"no enumeration kernel for {measure!r}; supported: P, R, SP, AP, RR, Succ, RBP, gRBP, DCG, "
                   "nDCG, RBTO, gP")
    h = 0
    while (c + 1) ** (h + 1) <= _TABLE_MAX:
        h += 1
    best, why = 2 * h, (f"the exact keys use tables of all {c + 1}^⌈N/2⌉ half runs, which beyond N = {2 * h} "
                        "need more than ~0.5 GB")
    return form_of(num).engine_depth(measure, c, best, why)  # the form's own limits (SP's lcm, DCG's identity …)


@dataclass(frozen=True, kw_only=True)
class BuildCost:
    """What computing a scale will cost: 0 when it is a closed form or already cached."""

    measure: M.Measure
    N: int
    runs: int  # runs the engine enumerates (0: closed form or complete cache)
    seconds: float  # estimated wall time on 2 cores (docs/benchmarks.md)
    bytes: int  # upper bound on the scale stored (one entry per distinct value), on disk or in memory
    directory: Path | None  # where the cache goes (None: the scale is held in memory)
    cached: bool

    def __str__(self) -> str:
        if not self.runs:
            return f"{self.measure.key} at N={self.N}: {'cached' if self.cached else 'closed form'}, no build"
        where = f"of cache in {self.directory}" if self.directory else "in memory (no cache)"
        return (f"{self.measure.key} at N={self.N}: enumerates {self.runs:,} runs once, about "
                f"{human_seconds(self.seconds)} and up to {human_bytes(self.bytes)} {where}")


def human_seconds(s: float) -> str:
    if s < 1:
        return "under 1 s"
    return f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h"


def human_bytes(b: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if b < 1000 or unit == "TB":
            return f"{b:.0f} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1000
    return ""  # pragma: no cover


def build_cost(measure: M.Measure, N: int, *, c: int = 1, cache: bool | str | Path = True,
               closed_forms: bool = True) -> BuildCost:
    """Estimated cost of ``scale(measure, N, c=c, cache=cache)`` before running it (so a caller can
    ask first): closed forms (unless ``closed_forms=False``: the engine's own build of such a scale)
    and complete caches cost nothing; otherwise all (c+1)^N runs are enumerated once (time from the
    N = 30 benchmark) and at most one entry per distinct value is stored, in the cache folder or,
    without a cache, in memory. Raises like :func:`scale` when N is beyond :func:`max_enumerable_depth`."""
    refuse_beyond(measure, N, *max_enumerable_depth(measure, c))
    num = numerator(measure)
    if closed_forms and c == 1 and has_closed_form(num):
        return BuildCost(measure=measure, N=N, runs=0, seconds=0.0, bytes=0, directory=None, cached=False)
    mode = kernel_mode(num, N, c)  # the cache path without building the kernel's half tables
    d = cache_path_for(num, N, c, mode, cache)
    done = False
    if d is not None and (d / "manifest.json").exists():
        try:
            man = json.loads((d / "manifest.json").read_text())
            done = man.get("params") == params_for(num, N, c, mode) and all(e.get("done") for e in man["chunks"])
        except (OSError, ValueError, KeyError, TypeError):
            done = False
    if done:
        return BuildCost(measure=measure, N=N, runs=0, seconds=0.0, bytes=0, directory=d, cached=True)
    seconds, stored = build_estimate(num, N, c)
    return BuildCost(measure=measure, N=N, runs=(c + 1) ** N, seconds=seconds, bytes=stored, directory=d, cached=False)


def build_estimate(measure: M.Measure, N: int, c: int = 1) -> tuple[float, int]:
    """(seconds, bytes) of enumerating the scale of ``measure`` (its :func:`~irscales.enumeration._runs.numerator`)
    at run length N from nothing: :func:`build_cost` without the cache check."""
    num = numerator(measure)
    runs = (c + 1) ** N
    form = form_of(num)  # its rate and, where the ties are known, fewer stored values than runs
    return _BUILD_OVERHEAD + runs * form.build_rate(num), int(form.distinct_bound(num, N, c) * _BYTES_PER_VALUE)

