"""Compile irscales' numba kernels ahead: ``python -m irscales.warm`` (``make install`` runs it; issue 36).

Without it the first read of real runs after installing compiles the run-file reader (20 s idle, 56 s on a
loaded machine) and the first DCG count the counting kernels. The kernels are compiled here through the
same calls as real work, on a tiny generated run file and tiny runs, so numba's cache holds exactly the
signatures reading, counting and bracketing use (numba compiles again for any other argument type: a read-only
array, int32 for int64 ...; ``tests/test_warm.py`` reads runs after :func:`warm` and checks nothing more compiles).
Then the reader's kernels are compiled once more, ahead of time, for those signatures (:mod:`irscales._aot`), so that
a process reads runs without loading numba; when that cannot be done here (no C compiler, no setuptools) it says
why, and runs are read through numba's kernels, as before.
"""

from __future__ import annotations

import gzip
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from irscales.data import _trec_kernels
from irscales.data._trec_arrays import QrelsIndex
from irscales.data._trec_cache import judged_run
from irscales.enumeration import _bracket_ap as bracket_ap
from irscales.enumeration.meet import dcg_below, graded_dcg_below

__all__ = ["AHEAD", "warm"]


def _warm_reader() -> None:
    """Read a plain and a gzipped run with judgments, as :func:`irscales.data._trec_cache.judged_runs` does,
    through numba's kernels."""
    text = "".join(f"{t} Q0 d{i} {i} {1 - i / 8} warm\n" for t in (1, 2) for i in range(1, 6)).encode()
    judged = QrelsIndex(pd.DataFrame({"topic": ["1", "1", "2"], "docno": ["d1", "d3", "d2"], "rel": [1, 0, 2]}))
    with tempfile.TemporaryDirectory(prefix="irscales-warm-") as d:
        plain, gz = Path(d) / "warm.run", Path(d) / "warm.run.gz"
        plain.write_bytes(text)
        gz.write_bytes(gzip.compress(text))
        use_ahead, _trec_kernels.USE_AHEAD = _trec_kernels.USE_AHEAD, False
        try:
            for path in (plain, gz):
                judged_run(path, "float64", judged, None, compiled=True)
        finally:
            _trec_kernels.USE_AHEAD = use_ahead


def _warm_counting() -> None:
    """Count binary and graded DCG φ of a few short runs (the fixed-point kernels)."""
    rng = np.random.default_rng(0)
    dcg_below(rng.random((8, 14)) < 0.4, 2)
    graded_dcg_below(rng.integers(0, 3, (8, 10)), 2, 2)


def _warm_bracket() -> None:
    """Bracket AP's φ of a short run (the rounded programme's kernel) and count one value exactly (the walk)."""
    bracket_ap.phi_bounds("AP", np.array([[1, 0, 1, 0, 0, 1]]), "mid", N=12)
    keys, L = bracket_ap.sp_exact(np.array([[1, 0, 1]]), 8)
    bracket_ap.count_exact(keys[0], L, 8)


#: What :func:`warm` did with the reader's module compiled ahead of time.
AHEAD = "not tried"


def _build_reader_ahead() -> None:
    """The reader's module compiled ahead of time, unless the one there was built from its source as it is; a
    failure is said on stderr, and reading goes on through numba's kernels."""
    global AHEAD
    try:
        built = _trec_kernels.build_ahead()
        AHEAD = "up to date" if built is None else f"built: {built.name}"
    except Exception as e:  # noqa: BLE001 - any failure of the build: numba's kernels read runs, as before
        print(f"irscales: the run-file reader was not compiled ahead of time ({type(e).__name__}: {e}); runs are "
              "read through numba's kernels (about 0.5 s more in each process that reads runs)", file=sys.stderr)
        AHEAD = "not built"


def warm() -> dict[str, float]:
    """Compile (or load from numba's cache) every kernel, then the reader's kernels ahead of time; seconds per
    group of kernels."""
    took = {}
    for name, step in (("run-file reader", _warm_reader), ("counting kernels", _warm_counting),
                       ("AP bracket kernels", _warm_bracket), ("run-file reader ahead of time", _build_reader_ahead)):
        t = time.perf_counter()
        step()
        took[name] = time.perf_counter() - t
    return took


def main() -> None:
    took = warm()
    print("irscales: compiled kernels: " + ", ".join(f"{k} {v:.1f} s" for k, v in took.items())
          + f" ({AHEAD})")


if __name__ == "__main__":
    main()
