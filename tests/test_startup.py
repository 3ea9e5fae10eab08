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


def test_import_irscales_loads_only_itself_and_the_measures():
    """The measures' registry is the package's list of names (issue 50), with the exact arithmetic they use;
    nothing heavier loads, and the version is asked of importlib.metadata only when read."""
    for code in ("import irscales", "import irscales\nirscales.__version__"):
        loaded = _loaded(code)
        assert "irscales" in loaded and all(m in ("irscales", "irscales.exact") or m.startswith("irscales.measures")
                                            for m in loaded), loaded
