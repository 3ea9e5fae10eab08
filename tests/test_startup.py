"""Start-up (issue 49 item 2): ``irscales --help`` and ``irscales scores --help`` load neither pandas, numba, scipy
nor the scale engine (they cost about a second), and ``import irscales`` loads none of irscales' modules. What is
loaded is checked, not timed: the time is in docs/benchmarks.md (tests that time the machine stay out of the
suite)."""

import json
import subprocess
import sys

import pytest

HEAVY = ("pandas", "numba", "scipy", "irscales.enumeration", "irscales.interval", "irscales.evaluation",
         "irscales.data.collection", "irscales.data.trec")


def _loaded(code: str) -> list[str]:
    probe = (f"import sys\n{code}\nimport json\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numba', 'scipy') "
             "or m.startswith('irscales'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return json.loads(out.splitlines()[-1])


@pytest.mark.parametrize("args", [["--help"], ["scores", "--help"], ["report", "--help"], ["scale", "--help"]])
def test_help_loads_no_heavy_module(args):
    loaded = _loaded("from irscales.cli import main\ntry:\n    main(%r)\nexcept SystemExit:\n    pass" % args)
    assert "irscales.cli" in loaded
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert not heavy, heavy


def test_import_irscales_loads_only_itself():
    """``import irscales`` loads no other module of irscales, nor numpy (issue 50): the measure classes, the
    registry's, load with the first of them or ``__all__`` asked for (with the exact arithmetic they use, nothing
    heavier); a sub-module imported from the package loads no measure; the version is asked of importlib.metadata
    only when read."""
    for code in ("import irscales", "import irscales\nirscales.__version__", "from irscales import paths"):
        loaded = _loaded(code)
        assert loaded == (["irscales"] if "paths" not in code else ["irscales", "irscales.paths"]), loaded
        out = subprocess.run([sys.executable, "-c", f"import sys\n{code}\nprint('numpy' in sys.modules)"],
                             capture_output=True, text=True, check=True).stdout
        assert out.split()[-1] == "False", code
    for code in ("import irscales\nirscales.AP", "import irscales\nirscales.__all__"):
        loaded = _loaded(code)
        assert "irscales.measures" in loaded and all(m in ("irscales", "irscales.exact")
                                                     or m.startswith("irscales.measures") for m in loaded), loaded


def _scores_call(tmp_path, args: list[str], setup: str = "") -> tuple[list[str], str]:
    """Modules loaded and the output of ``irscales scores`` on runs and qrels in ``tmp_path``, with its caches there
    (``setup``: code run before)."""
    code = (f"import os, sys\nos.environ['IRSCALES_CACHE'] = {str(tmp_path / 'cache')!r}\n{setup}\n"
            "from irscales.cli import main\n"
            f"try:\n    main({args!r})\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "sys.stdout.write('\\n')")
    probe = (f"{code}\nimport json\n"
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'numba', 'scipy') "
             "or m.startswith('irscales'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    text, loaded = out.rsplit("\n", 2)[:2]
    return json.loads(loaded), text


def test_plain_scores_load_no_scale_engine_and_on_runs_read_before_no_pandas_or_numba(tmp_path):
    """Issue 49: ``irscales scores`` without --ranked never loads the scale engine (the enumeration, the interval
    layer); a first call whose runs the compiled reader parses (as it does large inputs) loads no pandas (the
    qrels are read without it, csv / tsv written without it), nor numba when the reader was compiled ahead of
    time; on runs and qrels read before (the caches of judged
    runs and qrels) it loads neither pandas nor numba: nothing is parsed — the same bytes as the first call."""
    import numpy as np

    rng = np.random.default_rng(0)
    (tmp_path / "runs").mkdir()
    for s in range(2):  # files of 64 KiB and more are cached (irscales.data._trec_cache.CACHED_BYTES)
        (tmp_path / "runs" / f"input.r{s}").write_text("".join(
            f"{t} Q0 doc-{t}-{i:05d} {k + 1} {1000 - k + rng.random():.6f} run{s}\n"
            for t in (401, 402) for k, i in enumerate(rng.permutation(2000))))
    (tmp_path / "qrels").write_text("".join(f"{t} 0 doc-{t}-{i:05d} {int(i % 7 == 0)}\n" for t in (401, 402)
                                            for i in range(0, 2000, 3)))
    args = ["scores", str(tmp_path / "runs"), "--qrels", str(tmp_path / "qrels"), "--measures", "map,P_10,ndcg_cut_10",
            "--negative", "zero", "--format", "tsv"]
    first, cold = _scores_call(tmp_path, args, "from irscales.data import _trec_cache as trec_cache\n"
                               "trec_cache.COMPILED_READER_BYTES = 0  # as for 32 MiB of runs and more")
    again, warm = _scores_call(tmp_path, args)
    assert warm == cold and cold.count("\n") == 1 + 3 * 2 * 3  # a header; 2 topics and the mean, 2 runs, 3 measures
    engine = ("irscales.enumeration", "irscales.interval", "irscales.comparison")
    for loaded in (first, again):
        assert "irscales.evaluation" in loaded and not [m for m in loaded if m.startswith(engine)], loaded
    # numba is loaded by the first call only when the reader was not compiled ahead of time (irscales._aot)
    from irscales.data import _trec_kernels

    ahead = _trec_kernels.USE_AHEAD and _trec_kernels.ahead_kernels() is not None
    assert ("numba" in first) != ahead and not [m for m in first if m.split(".")[0] == "pandas"], first
    assert not [m for m in again if m.split(".")[0] in ("pandas", "numba", "scipy")], again
