"""Benchmark of the enumeration engine: the 11 FFF21 scales at N = 20, 25, 30 (issue 3).

Prints a markdown table of wall time, peak resident memory (the whole process tree: the driver and
its worker processes, sampled every 0.1 s) and cache size for each measure, then one total row per N.
Each measure runs in a fresh subprocess; all measures of one N share a cache folder (so nDCG reuses
the DCG chunks, as it would in real use: its scale is DCG's, rescaled). The cache is a temporary
folder removed at the end unless ``--cache DIR`` is given.

    python benchmarks/bench_enumeration.py            # N = 20, 25, 30
    python benchmarks/bench_enumeration.py --quick    # N = 16, 20
    python benchmarks/bench_enumeration.py --N 30 --memory-mb 2048 --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _one(measure: str, N: int, cache: str, memory_mb: int, workers: int) -> None:
    from irscales import enumeration as E
    from irscales import measures as M

    import resource

    t = time.perf_counter()
    s = E.scale(M.CLASSIC_MEASURES[measure], N, rb=N, cache=Path(cache), memory_mb=memory_mb, workers=workers,
                progress=False, method="scale", build=True)  # the stored scale is what is timed
    # CPU seconds of this process and its (joined) worker processes: less sensitive than wall time
    # to other jobs sharing the machine
    cpu = sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for f in ("ru_utime", "ru_stime"))
    print(json.dumps({"n_distinct": s.n_distinct, "n_runs": s.n_runs, "method": s.method, "mode": s.mode,
                      "chunks": len(s.chunks), "inner_seconds": time.perf_counter() - t, "cpu": cpu}))


def _tree_rss(proc) -> int:
    total = 0
    try:
        for p in [proc] + proc.children(recursive=True):
            try:
                total += p.memory_info().rss
            except Exception:  # a worker that just exited
                pass
    except Exception:
        pass
    return total


def _run(measure: str, N: int, cache: Path, memory_mb: int, workers: int) -> dict:
    cmd = [sys.executable, __file__, "--one", measure, str(N), str(cache), str(memory_mb), str(workers)]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    peak = 0
    try:
        import psutil

        ps = psutil.Process(proc.pid)
        while proc.poll() is None:
            peak = max(peak, _tree_rss(ps))
            time.sleep(0.1)
    except ImportError:  # fall back on the largest single process (an underestimate of the tree)
        proc.wait()
    out, _ = proc.communicate()
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"benchmark of {measure} at N={N} failed (exit {proc.returncode})")
    res = json.loads(out.strip().splitlines()[-1])
    res.update(wall=wall, peak_mb=peak / 2**20)
    return res


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="N = 16, 20 only")
    ap.add_argument("--N", type=int, nargs="+", default=None)
    ap.add_argument("--measures", nargs="+", default=None)
    ap.add_argument("--memory-mb", type=int, default=2048)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cache", default=None, help="keep the scales in this folder")
    ap.add_argument("--one", nargs=5, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.one:
        m, n, cache, mem, w = a.one
        _one(m, int(n), cache, int(mem), int(w))
        return 0
    from irscales import measures as M

    Ns = a.N or ([16, 20] if a.quick else [20, 25, 30])
    names = a.measures or list(M.CLASSIC_MEASURES)
    root = Path(a.cache) if a.cache else Path(tempfile.mkdtemp(prefix="irscales-bench-"))
    print(f"memory budget {a.memory_mb} MB, {a.workers} workers, {os.cpu_count()} cores\n")
    print("| N | measure | method | mode | distinct values | chunks | wall (s) | CPU (s) | peak RSS (MB) | cache (MB) |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|")
    try:
        for N in Ns:
            cache = root / f"N{N}"
            cache.mkdir(parents=True, exist_ok=True)
            tot_wall, tot_cpu, tot_peak = 0.0, 0.0, 0.0
            for name in names:
                before = _du(cache)
                r = _run(name, N, cache, a.memory_mb, a.workers)
                grew = (_du(cache) - before) / 2**20
                tot_wall += r["wall"]
                tot_cpu += r["cpu"]
                tot_peak = max(tot_peak, r["peak_mb"])
                print(f"| {N} | {name} | {r['method']} | {r['mode']} | {r['n_distinct']:,} | {r['chunks']} | "
                      f"{r['wall']:.1f} | {r['cpu']:.1f} | {r['peak_mb']:.0f} | {grew:.0f} |", flush=True)
            print(f"| {N} | **all {len(names)}** | | | | | **{tot_wall:.1f}** | **{tot_cpu:.1f}** | "
                  f"**{tot_peak:.0f}** (max) | **{_du(cache) / 2**20:.0f}** |", flush=True)
            print(f"\nload average during N={N}: {os.getloadavg()[0]:.1f} (1 min, at the end)", flush=True)
    finally:
        if not a.cache:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
