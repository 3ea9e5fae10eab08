"""Test-session settings. The library has no default for IRSCALES_SHARED (a user's clone needs nothing
beside it); a developer's or CI's checkout with the project's shared folder beside it runs the
optional real-data tests against it. Every such test skips with a one-line reason when it is absent.

Tests that read data — the shared folder, the ``IRSCALES_*`` data settings, the public collections or the
user's cache — carry the marker ``data`` (``make test`` runs ``-m data`` again as on a fresh clone). Every
other test runs as on a fresh clone already: the data settings unset, the cache a folder of this session
(:func:`scale_cache`, so a scale is built once per session), and a call of a function that finds shared
data or a public collection fails the test, naming the marker it lacks (issue 40)."""

import functools
import os
from pathlib import Path

import numpy as np
import pytest

from irscales import paths
from irscales.data import datasets

_BESIDE = Path(__file__).resolve().parents[2] / "shared"

if "IRSCALES_SHARED" not in os.environ and "IRSCALES_TREC" not in os.environ and (_BESIDE / "trec").is_dir():
    os.environ["IRSCALES_SHARED"] = str(_BESIDE)


# ------------------------------------------------------------------ tests that read data, and the others (issue 40)

#: The settings that point at data outside the repository (irscales.paths, irscales.data.datasets).
DATA_SETTINGS = ("IRSCALES_SHARED", "IRSCALES_TREC", "IRSCALES_GOP", "IRSCALES_SCORES", "IRSCALES_COLLECTIONS")

#: The functions through which the library finds shared data and the public collections.
DATA_FINDERS = ((paths, ("shared_dir", "trec_dir", "gop_dir", "scores_dir")),
                (datasets, ("mirror_dir", "archive_path", "locate")))


#: The tests marked ``slow`` (``make test-fast`` leaves them out): ``file::function`` per line of slow_tests.txt
#: (none where this conftest is copied without it: tests/test_notebooks.py runs it in a pytest of its own).
_SLOW_LIST = Path(__file__).parent / "slow_tests.txt"
SLOW_TESTS = frozenset(line.strip() for line in (_SLOW_LIST.read_text().splitlines() if _SLOW_LIST.is_file() else ())
                       if line.strip() and not line.startswith("#"))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """A stored notebook runs on whatever data its parameters find, so its cells carry the marker ``data``
    (the Makefile's ``DATA_NOTEBOOKS`` names the ones the fresh-clone pass runs); the tests of
    :data:`SLOW_TESTS` carry ``slow``."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.data)
        elif item.nodeid.split("[")[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def scale_cache(tmp_path_factory):
    """The cache folder of this session, empty at its start: every test not marked ``data`` runs on it
    (``IRSCALES_CACHE``), and a test marked ``data`` passes it as ``cache=`` for the scales it builds, so a
    scale (SP at N = 22 …) is built once per session and never read from the user's cache."""
    return tmp_path_factory.mktemp("scale-cache")


@pytest.fixture(autouse=True)
def _data_kept_apart(request, monkeypatch, scale_cache):
    """Tests not marked ``data`` run without the data settings, on :func:`scale_cache`, and fail when they
    call a function of :data:`DATA_FINDERS`."""
    if request.node.get_closest_marker("data") is not None:
        yield
        return
    for name in DATA_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("IRSCALES_CACHE", str(scale_cache))
    called = []

    def finder(module, name):
        f = getattr(module, name)

        @functools.wraps(f)
        def recorded(*args, **kwargs):
            called.append(f"{module.__name__}.{name}")
            return f(*args, **kwargs)
        return recorded

    for module, names in DATA_FINDERS:
        for name in names:
            monkeypatch.setattr(module, name, finder(module, name))
    yield
    if called:
        pytest.fail(f"{request.node.nodeid} reads data ({', '.join(sorted(set(called)))}) without the marker: "
                    "add @pytest.mark.data (or pytestmark = pytest.mark.data in its module)", pytrace=False)


# ------------------------------------------------------------------ score matrices shared by the stats tests


@pytest.fixture(scope="module")
def tied_scores():
    """(25 topics, 9 systems) small integers: many ties and zero differences."""
    rng = np.random.default_rng(2024)
    return rng.integers(0, 6, size=(25, 9)).astype(float)


@pytest.fixture(scope="module")
def continuous_scores():
    """(20 topics, 7 systems) normal scores with increasing system means."""
    rng = np.random.default_rng(99)
    return rng.normal(size=(20, 7)) + np.linspace(0, 1.2, 7)


def make_random_scores(T=12, S=15, seed=0, names=("AP", "P@10", "RBP")):
    """A score dictionary name -> (T, S) of correlated simulated measures; P@10 on its tenths grid."""
    rng = np.random.default_rng(seed)
    base = rng.random((T, S))
    out = {}
    for k, n in enumerate(names):
        v = np.clip(base + rng.normal(0, 0.2 * (k + 1), (T, S)), 0, 1)
        out[n] = np.round(v * 10) / 10 if n == "P@10" else v
    return out


@pytest.fixture
def random_scores():
    """:func:`make_random_scores`, as a fixture the tests call with their own sizes."""
    return make_random_scores


# ------------------------------------------------------------------ the report of the committed figures


@pytest.fixture(scope="session")
def committed_figures_report(tmp_path_factory):
    """A copy of the committed figures with REPORT.md and report.html built into it by the report's code, as
    on a fresh clone (no data settings): what the tests of the report's content read, not the committed files
    (tests/test_report.py checks separately that the committed ones are what the committed figures build)."""
    import shutil

    from irscales.papers import report
    from irscales.paths import repo_root

    root = repo_root()
    if root is None or not (root / "figures" / "fer17").is_dir():
        pytest.skip("not a source checkout with the committed figures")
    figs = tmp_path_factory.mktemp("report") / "figures"
    shutil.copytree(root / "figures", figs, ignore=shutil.ignore_patterns("executed", "public", "REPORT.md",
                                                                        "report.html"))
    with pytest.MonkeyPatch.context() as mp:
        for name in DATA_SETTINGS:
            mp.delenv(name, raising=False)
        report.build(figs)
    return figs


# ------------------------------------------------------------------ the README's demo data


@pytest.fixture(scope="session")
def cranfield_demo(tmp_path_factory):
    """The folder ``irscales sample-data demo`` writes (10 real runs on the shipped Cranfield collection, depth
    100, and the qrels), made by that very command, as a new user following the README does."""
    from click.testing import CliRunner

    from irscales.cli import main
    from irscales.data.datasets import available

    if not available("cranfield"):
        pytest.skip("the Cranfield collection is not available (data/collections/ ships it)")
    base = tmp_path_factory.mktemp("new_user")
    r = CliRunner().invoke(main, ["sample-data", str(base / "demo")])
    assert r.exit_code == 0, r.output
    return base
