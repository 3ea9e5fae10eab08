"""Run every benchmark script in this folder (bench_*.py) and print their markdown tables.

Results are recorded by hand in docs/benchmarks.md with the machine and the date; benchmarks are
not tests (no timing assertion anywhere in the test suite).
"""

from __future__ import annotations

import platform
import subprocess
import sys
from datetime import date
from pathlib import Path

import os

HERE = Path(__file__).resolve().parent


def main() -> int:
    quick = "--quick" in sys.argv[1:]
    print(f"# irscales benchmarks — {date.today().isoformat()}")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    failed = 0
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"\n## {script.stem}\n", flush=True)
        args = [sys.executable, str(script)] + (["--quick"] if quick else [])
        failed += subprocess.call(args) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
