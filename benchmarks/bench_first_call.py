"""The first read of real runs after installing against a later cold read (issue 36 item 2: no silent wait).

One command, as a user runs it: ``irscales scores <T08 runs> --qrels <T08 qrels> --measures AP --means-only``
on the 129 TREC-8 runs, every time with an empty ``IRSCALES_CACHE`` (no parsed run kept). Three cases:

- **first, not warmed**  numba's cache empty: the run-file reader compiles during the read (before issue 36
                         every installation paid this on its first read, silently);
- **first after install** numba's cache filled by ``python -m irscales.warm`` (what ``make install`` runs
                         after ``pip install -e .``), then the first read;
- **later cold**         the same read again in a fresh process (numba's cache warm, parsed-run cache empty).

numba's cache is a fresh temporary ``NUMBA_CACHE_DIR`` per repetition, which is what deleting the package's
``*.nbi``/``*.nbc`` files does, without touching them. Each repetition runs every case in turn; medians of
wall time; the first line the command writes on stderr is printed (the compile note, or nothing).

Usage: python benchmarks/bench_first_call.py [--repeats 3] [--quick]   (``--quick``: one repetition)
The machine is shared? Say so next to the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from irscales.paths import trec_dir

ROOT = Path(__file__).resolve().parents[1]


def _timed(args: list[str], env: dict) -> tuple[float, str]:
    t = time.perf_counter()
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=1800)
    took = time.perf_counter() - t
    if p.returncode:
        raise RuntimeError(f"{' '.join(args)} failed: {p.stderr[-2000:]}")
    return took, (p.stderr.splitlines() or [""])[0]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    t08 = trec_dir() / "T08" if trec_dir() else None
    if t08 is None or not (t08 / "runs").is_dir():
        print("skipped: the TREC-8 runs are not in <IRSCALES_TREC>/T08")
        return 0
    cli = [sys.executable, "-c", "from irscales.cli import main; main()", "scores", str(t08 / "runs"), "--qrels",
           str(t08 / "qrels.trec8.adhoc.gz"), "--measures", "AP", "--means-only"]
    warm = [sys.executable, "-m", "irscales.warm"]
    times: dict[str, list[float]] = {"first, not warmed": [], "warm-up (make install)": [], "first after install": [],
                                     "later cold": []}
    notes: dict[str, str] = {}
    for _ in range(1 if a.quick else a.repeats):
        with tempfile.TemporaryDirectory(prefix="nb-cold-") as nb_cold, tempfile.TemporaryDirectory(
                prefix="nb-warm-") as nb_warm:
            for case, numba_dir, args in (("first, not warmed", nb_cold, cli), ("warm-up (make install)", nb_warm, warm),
                                          ("first after install", nb_warm, cli), ("later cold", nb_warm, cli)):
                with tempfile.TemporaryDirectory(prefix="irscales-cache-") as cache:
                    env = {**os.environ, "NUMBA_CACHE_DIR": numba_dir, "IRSCALES_CACHE": cache}
                    took, first = _timed(args, env)
                times[case].append(took)
                notes[case] = first
    print("| case | wall s (median) | runs | first line on stderr |\n|---|---:|---|---|")
    for case, ts in times.items():
        print(f"| {case} | {statistics.median(ts):.1f} | {', '.join(f'{t:.1f}' for t in ts)} | {notes[case] or '—'} |")
    ratio = statistics.median(times["first after install"]) / statistics.median(times["later cold"])
    print(f"\nfirst call after install / later cold call: {ratio:.2f} (issue 36: at most 1.5)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
