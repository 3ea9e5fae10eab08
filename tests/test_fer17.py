"""Fer17 §3.4 on original TREC systems (irscales.fer17.system_performance): a hand-made collection and,
when IRSCALES_TREC has them, the real TREC-8 runs checked against trec_eval (pytrec_eval)."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from irscales import fer17, io
from irscales.collections import Collection


def test_system_performance_is_the_mean_over_topics():
    rng = np.random.default_rng(0)
    rel = rng.integers(0, 3, size=(4, 3, 25)).astype(np.int8)
    judgments = np.array([[40, 5, 3], [40, 8, 1], [40, 2, 6]], dtype=np.int64)
    c = Collection(rel=rel, judgments=judgments, run_lengths=np.full((4, 3), 25, dtype=np.int64),
                   topics=("q1", "q2", "q3"), systems=("a", "b", "c", "d"), provenance="simulated: hand seed=0 depth=25",
                   max_grade=2)
    perf = fer17.system_performance(c, ["AP", "P@10"])
    sc = fer17.score_matrices(c, ["AP", "P@10"])
    assert perf["AP"].shape == (4,) and np.array_equal(perf["AP"], sc["AP"].mean(axis=0))
    assert np.allclose(perf["P@10"], (rel[:, :, :10] > 0).mean(axis=(1, 2)))
    assert fer17.kl_divergence(perf["AP"], perf["AP"]) == 0.0


def test_original_t08_systems_agree_with_trec_eval():
    from irscales.paths import trec_track

    t = trec_track("T08")
    if t is None:
        pytest.skip("TREC-8 runs not found: set IRSCALES_TREC to a folder with T08/runs and T08/qrels*")
    files = [f for f in io.find_runs(t.runs) if f.name.split(".")[1] in ("uwmt8a0", "CL99XT", "ok8amxc")]
    c = Collection.from_trec(files, t.qrels, depth=1000)
    perf = fer17.system_performance(c, ["AP", "P@10"])
    q = io.read_qrels(t.qrels)
    qd: dict = {}
    for tp, d, r in q[["topic", "docno", "rel"]].itertuples(index=False):
        qd.setdefault(tp, {})[d] = int(r)
    for f in files:
        run = io.read_run(f)
        rd: dict = {}
        for tp, d, s in run[["topic", "docno", "score"]].itertuples(index=False):
            rd.setdefault(tp, {})[d] = float(s)
        ev = pytrec_eval.RelevanceEvaluator(qd, {"map", "P_10"}).evaluate(rd)
        j = c.systems.index(run.attrs["system"])
        assert perf["AP"][j] == pytest.approx(np.mean([v["map"] for v in ev.values()]), abs=1e-12)
        assert perf["P@10"][j] == pytest.approx(np.mean([v["P_10"] for v in ev.values()]), abs=1e-12)
