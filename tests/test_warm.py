"""Compiling ahead (issue 36 item 2): the warm-up compiles exactly the kernel signatures real reading and
counting use (so the first read after ``make install`` compiles nothing), and a compile that still happens says
so on stderr, once, only when numba's cache lacks the kernel."""

from __future__ import annotations

import gzip
import importlib.util
import shutil
import subprocess
import sys

import numba
import numpy as np
import pytest

from irscales import _jit_cache as jit_cache, warm
from irscales.data import trec as io
from irscales.data import _trec_kernels
from irscales.data._trec_kernels import jit_kernels
from irscales.enumeration import (_bracket_ap as bracket_ap, _bracket_ap_kernels as bracket_ap_kernels,
                                  _fixed_count as fixed_count, counting)


def _signatures() -> dict[str, list]:
    return {k.py_func.__name__: list(k.signatures)
            for k in (*jit_kernels(), *fixed_count._kernels(), *bracket_ap_kernels.kernels())}


@pytest.mark.filterwarnings("ignore:1 run topic")  # topic 104 has no judgments, on purpose
def test_reading_and_counting_after_warm_compile_nothing_more(tmp_path, monkeypatch):
    took = warm.warm()
    assert set(took) == {"run-file reader", "counting kernels", "AP bracket kernels", "run-file reader ahead of time"}
    # the module compiled ahead of time is built (or was, from this source), wherever a C compiler and setuptools
    # are there to build it (as on every machine `make install` runs on here)
    buildable = shutil.which("cc") is not None and importlib.util.find_spec("setuptools") is not None
    assert warm.AHEAD == "up to date" or warm.AHEAD.startswith("built: ") or not buildable, warm.AHEAD
    monkeypatch.setattr(_trec_kernels, "USE_AHEAD", False)  # numba's kernels, read as the fallback reads
    before = _signatures()
    assert all(len(s) == 1 for s in before.values()), before
    q = tmp_path / "qrels"
    q.write_text("".join(f"{t} 0 d{i} {i % 3}\n" for t in (101, 102, 103) for i in range(40)))
    runs = []
    for r in range(4):  # plain and gzipped files, several topics, ties, a topic without judgments
        text = "".join(f"{t} Q0 d{(i + 7 * r) % 60} {i} {round(1 - i / 50, 1)} run{r}\n"
                       for t in (101, 102, 103, 104) for i in range(1, 50)).encode()
        f = tmp_path / (f"run{r}.gz" if r % 2 else f"run{r}")
        f.write_bytes(gzip.compress(text) if r % 2 else text)
        runs.append(f)
    for precision in ("float32", "float64"):
        data = io.read_trec(runs, q, depth=30, cache=tmp_path / f"cache-{precision}", score_precision=precision,
                            on_missing_topic="skip")
    rel = np.asarray(data.rel)
    assert rel.shape[-1] == 30 and rel.any()
    bits = (rel.reshape(-1, 30) > 0).astype(np.int64)
    counting.phi_runs("DCG_b02", bits)
    counting.phi_runs("gnDCG_b03", np.minimum(rel.reshape(-1, 30)[:, :12], 2), c=2)
    bracket_ap.phi_bounds("AP", bits[:4], "mid", N=60)  # the rounded programme (issue 42's bounded route)
    keys, L = bracket_ap.sp_exact(bits[:1], 30)
    bracket_ap.count_exact(keys[0], L, 30)  # the exact walk
    assert _signatures() == before


def _kernel(tmp_path, name: str, body: str = "2 * x"):
    """A numba kernel with numba's cache on, from a module file written into tmp_path."""
    src = tmp_path / f"{name}.py"
    src.write_text(f"def double(x):\n    return {body}\n")
    spec = importlib.util.spec_from_file_location(name, src)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return numba.njit(cache=True)(mod.double)


def test_the_note_is_written_only_when_a_kernel_compiles(tmp_path, capsys):
    k = _kernel(tmp_path, "irscales_note_probe")
    assert not jit_cache.cached(k)
    assert jit_cache.note_compiling("a probe", 3, [k])
    assert capsys.readouterr().err == "irscales: compiling a probe (once after installing, ~3 s)…\n"
    assert k(21) == 42  # compiled and written to numba's cache beside the source
    assert jit_cache.cached(k)
    again = _kernel(tmp_path, "irscales_note_probe")  # a new process would see this: the cache is on disk
    assert jit_cache.cached(again)
    assert not jit_cache.note_compiling("a probe", 3, [again])
    assert capsys.readouterr().err == ""


def test_a_changed_source_compiles_again(tmp_path):
    k = _kernel(tmp_path, "irscales_note_changed")
    k(1)
    assert jit_cache.cached(_kernel(tmp_path, "irscales_note_changed"))
    assert not jit_cache.cached(_kernel(tmp_path, "irscales_note_changed", "x + x"))  # numba hashes the source


def test_without_numba_internals_nothing_is_noted(capsys):
    assert jit_cache.cached(object())
    assert not jit_cache.note_compiling("anything", 1, [object()])
    assert capsys.readouterr().err == ""


def test_loading_the_reader_skips_numbas_blas_probe_but_blas_still_works():
    """Issue 49: the reader's kernels load without numba's eager ``scipy.linalg`` import (0.17 s of a cold read);
    the BLAS check is put back, so a kernel that uses BLAS compiles and is right (a fresh process: this one has
    imported numba's array functions already)."""
    code = """
import sys
import numpy as np
from irscales.data import _trec_kernels
from irscales.data._trec_fast import Judgments
_trec_kernels.USE_AHEAD = False  # numba's kernels (the module compiled ahead of time loads no numba at all)
Judgments(np.zeros(1, np.int64), ["d"], np.ones(1, np.int16), 1)  # loads the reader's kernels
assert "numba.np.arraymath" in sys.modules and "scipy.linalg" not in sys.modules, "scipy.linalg imported"
import numba, numba.np.arraymath as arraymath, numba.np.linalg as linalg
assert arraymath._HAVE_BLAS and arraymath.ensure_blas is linalg.ensure_blas
dot = numba.njit(lambda a, b: np.dot(a, b))
a = np.arange(1.0, 6.0)
assert dot(a, a) == 55.0 and "scipy.linalg" in sys.modules
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
