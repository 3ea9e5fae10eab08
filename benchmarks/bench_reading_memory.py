"""Peak memory of reading runs when the run length N is far beyond the runs' real length (issue 27 item 7);
prints a markdown table.

Two cases, each one ``irscales scores`` command in a fresh process with a fresh ``IRSCALES_CACHE``, its peak
resident set size read with ``getrusage(RUSAGE_CHILDREN)`` (the figure ``/usr/bin/time -v`` prints):

- the 129 real TREC-8 runs (1,000 documents per topic at most) at ``--depth 1000000`` (AP, nDCG_b02, RR, means
  only), first read (parse + write the cache of parsed runs) and a second read (cache hit); skipped with a
  note when ``<IRSCALES_SHARED>/trec/T08`` is absent;
- 100,000 topics with one judged and one retrieved document each (generated in a temporary folder:
  **generated files, not real runs**), default depth 1000, means only.

Memory is what this benchmark is about, so its figures hold on a busy machine; wall times are printed too.

Usage: python benchmarks/bench_reading_memory.py [--src PATH]   (PATH: the ``src`` folder of another
checkout, e.g. to measure the code before a change; default: this checkout's)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# a child that runs the command and reports the peak resident size of what it ran (KiB on Linux)
_MEASURE = ("import resource, subprocess, sys; rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL); "
            "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def _peak(args: list[str], env: dict) -> tuple[int, float, float]:
    """(exit code, peak RSS in MiB, wall seconds) of ``irscales <args>``."""
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "irscales.cli", *args],
                         env=env, capture_output=True, text=True, check=True)
    rc, kib = out.stdout.split()
    return int(rc), int(kib) / 1024, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", default=str(HERE.parent / "src"), help="the src folder whose irscales is measured")
    ap.add_argument("--quick", action="store_true", help="(accepted for benchmarks/run.py; no effect)")
    a = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": a.src}
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        shared = os.environ.get("IRSCALES_SHARED") or str(HERE.parent.parent / "shared")
        t08 = Path(shared) / "trec" / "T08"
        if (t08 / "runs").is_dir():
            env["IRSCALES_CACHE"] = str(tmp / "cache-t08")
            cmd = ["scores", str(t08 / "runs"), "--qrels", str(t08 / "qrels.trec8.adhoc.gz"), "--depth", "1000000",
                   "--means-only"]
            for label in ("first read", "cache hit"):
                rows.append((f"129 T08 runs, `--depth 1000000`, {label}", *_peak(cmd, env)))
        else:
            print(f"(T08 runs not found under {t08}: the first case is skipped)")
        T = 100_000
        (tmp / "q").write_text("".join(f"{t} 0 d{t} 1\n" for t in range(1, T + 1)))
        (tmp / "r").write_text("".join(f"{t} Q0 d{t if t % 2 else 'x'} 1 1.5 run\n" for t in range(1, T + 1)))
        env["IRSCALES_CACHE"] = str(tmp / "cache-many")
        rows.append(("100,000 topics x 1 document (generated), depth 1000", *_peak(
            ["scores", str(tmp / "r"), "--qrels", str(tmp / "q"), "--means-only"], env)))
    print(f"irscales from {a.src}\n")
    print("| case | exit code | peak RSS MiB | wall s |\n|---|---:|---:|---:|")
    for label, rc, mib, wall in rows:
        print(f"| {label} | {rc} | {mib:,.0f} | {wall:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
