"""Issue 37 item 8: work that depends on the depth is estimated before it is allocated. Interval-scaled values
at a depth far beyond the runs count φ on the stored ranks (the padding is never made real), and a padded
array over the documented limit is refused with its size and the depth that fits."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from click.testing import CliRunner

from irscales import measures as M
from irscales.cli import main
from irscales.data import load_preset
from irscales.data.collection import Collection
from irscales._padding import PAD_LIMIT_ENV, PaddingTooLarge
from irscales.enumeration import counting
from irscales.evaluation import evaluate


@pytest.fixture(scope="module")
def col():
    return load_preset("sim-t08", depth=30, seed=4).subset(systems=[0, 1, 2], topics=list(range(5)))


@pytest.mark.parametrize("measure, c", [(M.P(), 1), (M.R(), 1), (M.RR(), 1), (M.RBP(p=Fraction(1, 2)), 1),
                                        (M.RBP(p=Fraction(3, 10)), 1), (M.RBP(p=Fraction(4, 5)), 1),
                                        (M.GP(max_gain=2), 2)])
@pytest.mark.parametrize("N", [31, 40, 70])
@pytest.mark.parametrize("ties", ["unq", "min", "mid"])
def test_stored_ranks_count_as_the_padded_runs(col, measure, c, N, ties):
    if not counting.countable(measure, N, c, ties):
        pytest.skip(f"{measure.key} is not counted at N={N}")
    rel = col.binary(30) if c == 1 else np.random.default_rng(1).integers(0, c + 1, (3, 5, 30)).astype(np.int8)
    padded = np.concatenate([rel, np.zeros(rel.shape[:-1] + (N - 30,), rel.dtype)], axis=-1)
    want = counting.phi_runs(measure, padded, ties, c=c)
    got = counting.phi_runs(measure, rel, ties, c=c, N=N)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_runs_longer_than_N_are_refused(col):
    with pytest.raises(ValueError, match="longer than N=20"):
        counting.phi_runs(M.P(), col.binary(30), N=20)


def test_padding_over_the_limit_is_refused(col, tmp_path, monkeypatch):
    rundir, qrels = col.to_trec(tmp_path)
    deep = Collection.from_trec(rundir, qrels, depth=10**6, cache=False)  # reading stores the 30 ranks only
    assert deep.rel.shape == (3, 5, 30)
    monkeypatch.setenv(PAD_LIMIT_ENV, "100000")
    with pytest.raises(PaddingTooLarge) as e:
        deep.binary(10_000)  # 3 x 5 runs x 10,000 ranks = 150 kB
    msg = str(e.value)
    assert "\n" not in msg
    assert "would allocate 150.0 kB (15 runs (system x topic) x 10,000 ranks), over the limit of 100.0 kB" in msg and "a depth up to 6,666 fits" in msg
    assert deep.binary(6_000).shape == (3, 5, 6_000) and deep.binary(10**6, pad=False).shape == (3, 5, 30)


def test_interval_values_at_a_huge_depth_allocate_no_padding(col, tmp_path, monkeypatch):
    """N = 10^6 on 15 runs of ≤ 30 documents: the padding alone would be 15 MB, over a 1 MB limit."""
    monkeypatch.setenv(PAD_LIMIT_ENV, "1000000")
    rundir, qrels = col.to_trec(tmp_path)
    for depth, measures in ((10**6, "P,RR"), (1000, "RBP_p05")):  # φ of RBP_p05 has N bits: see below
        ev = evaluate(qrels, rundir, measures, depth=depth, ranked=True, cache=False)
        for lab, m in ev.measures.items():
            phi = ev.interval(lab, raw=True).to_numpy().T
            rel = np.asarray(col.binary(30))
            want = counting.phi_runs(m, np.concatenate([rel, np.zeros((3, 5, depth - 30), rel.dtype)], -1)) \
                if depth <= 1000 else counting.phi_runs(m, rel, N=depth)
            assert [int(x) for x in phi.ravel()] == [int(x) for x in want.ravel()], lab
    with pytest.raises(PaddingTooLarge, match=r"RBP_p05 at N = 1,000,000 are exact numbers of up to 1,000,001 bits: "
                                              r"15 runs \(system x topic\) need about 7.5 MB, over the limit of 1.0 MB"):
        evaluate(qrels, rundir, "RBP_p05", depth=10**6, ranked=True, cache=False)
    r = CliRunner().invoke(main, ["scores", str(rundir), "--qrels", str(qrels), "--depth", str(10**6), "--ranked",
                                  "--measures", "P,RR", "--means-only", "--no-cache"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    a, b = sorted(rundir.iterdir())[:2]  # IPSO compares whole runs: it pads, and is refused with the estimate
    r = CliRunner().invoke(main, ["compare", str(a), str(b), "--qrels", str(qrels), "--depth", str(10**6),
                                  "--measures", "P"], catch_exceptions=False)
    assert r.exit_code == 1 and r.stdout == ""
    err = r.stderr.strip().splitlines()[-1]
    assert err.startswith("irscales: error: padding the runs to depth 1,000,000 would allocate") and PAD_LIMIT_ENV in err
