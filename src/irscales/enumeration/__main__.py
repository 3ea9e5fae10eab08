"""``python -m irscales.enumeration``: distinct values of the FFF21 measures over all runs (FFF21 §5.1),
written to ``data/derived/distinct_counts.csv`` (:func:`irscales.enumeration._build.distinct_counts_table`)."""
from __future__ import annotations

import argparse
from pathlib import Path

from irscales import measures as M
from irscales.enumeration._build import distinct_counts_table

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv``, write the table and print it."""
    ap = argparse.ArgumentParser(description="distinct values of the FFF21 measures over all runs")
    ap.add_argument("--N", type=int, nargs="+", default=[4, 5, 10, 15, 20, 25])
    ap.add_argument("--measures", nargs="+", default=None, help="paper keys, e.g. RBP_p08 DCG_b02")
    ap.add_argument("--out", default=None)
    ap.add_argument("--memory-mb", type=int, default=1024)
    ap.add_argument("--cache", default=None, help="cache folder (default: irscales.paths.cache_dir())")
    a = ap.parse_args(argv)
    ms = {k: M.parse(k) for k in a.measures} if a.measures else None
    # this command exists to build the scales it is asked for: consent to builds over the budget
    df = distinct_counts_table(a.N, ms, a.out, memory_mb=a.memory_mb, cache=Path(a.cache) if a.cache else True,
                               build=True)
    print(df.to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
