"""Test-session settings. The library has no default for IRSCALES_SHARED (a user's clone needs nothing
beside it); a developer's or CI's checkout with the project's shared folder beside it runs the
optional real-data tests against it. Every such test skips with a one-line reason when it is absent."""

import os
from pathlib import Path

import numpy as np
import pytest

_BESIDE = Path(__file__).resolve().parents[2] / "shared"

if "IRSCALES_SHARED" not in os.environ and "IRSCALES_TREC" not in os.environ and (_BESIDE / "trec").is_dir():
    os.environ["IRSCALES_SHARED"] = str(_BESIDE)


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
