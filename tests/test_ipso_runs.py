"""IPSO on runs (irscales.ipso._runs, MM23 §3): hand-worked cases and cross-checks against per-pair
loops (ipso.compare_reference, ipso.compare)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from irscales import data as collections
from irscales import ipso
from irscales.data.collection import Collection
from irscales.ipso import Relation
from irscales.papers import mm23

EQ, NI, NS, NX = (int(r) for r in Relation)


@pytest.fixture(scope="module")
def small():
    """12 systems x 40 topics x 20 ranks of the simulated Robust-like preset."""
    col = collections.load_preset("sim-r04", depth=20, seed=3)
    return col.subset(systems=list(range(0, 110, 9))[:12], topics=list(range(40)))


HAND = np.array([
    # topic 1            topic 2
    [[1, 0, 0], [0, 0, 1]],   # s0
    [[0, 1, 1], [0, 0, 1]],   # s1
    [[1, 0, 1], [1, 0, 0]],   # s2
])


def test_hand_case_relations_at_every_depth():
    r = ipso.pair_relations(HAND)
    assert list(zip(r.first.tolist(), r.second.tolist())) == [(0, 1), (0, 2), (1, 2)]
    # (s0, s1) topic 1: cumul 1, 0, -1 -> ahead at 1, behind at 3: ni at k=1,2, ** at 3
    # (s0, s1) topic 2: identical -> = ;  (s0, s2) topic 1: cumul 0, 0, -1 -> = then ns at 3
    # (s0, s2) topic 2: cumul -1, -1, 0 -> ns ; (s1, s2) topic 1: -1, 0, 0 -> ns
    # (s1, s2) topic 2: -1, -1, 0 -> ns
    assert r.at(1).tolist() == [[NI, EQ], [EQ, NS], [NS, NS]]
    assert r.at(2).tolist() == [[NI, EQ], [EQ, NS], [NS, NS]]
    assert r.at(3).tolist() == [[NX, EQ], [NS, NS], [NS, NS]]
    assert r.counts(3) == {"=": 1, "ni": 0, "ns": 4, "**": 1}
    t3 = mm23.table3(r, [1, 3])
    assert t3.loc[3, "SERP pairs"] == 6
    assert t3.loc[3, "non-sep. %"] == pytest.approx(100 / 6)
    assert t3.loc[1, "equal %"] == pytest.approx(100 * 2 / 6)
    ni, ns = r.sign_counts(3)
    assert ni.tolist() == [0, 0, 0] and ns.tolist() == [0, 2, 2]


def test_pair_index_matches_triu_order():
    r = ipso.pair_relations(np.zeros((7, 1, 2), dtype=np.int8))
    for row, (a, b) in enumerate(zip(r.first.tolist(), r.second.tolist())):
        assert r.pair_index(a, b) == (row, False)
        assert r.pair_index(b, a) == (row, True)
    with pytest.raises(ValueError, match="two different"):
        r.pair_index(2, 2)


@pytest.mark.parametrize("bad, err, msg", [
    (np.zeros((2, 3)), ValueError, "shape"),
    (np.zeros((1, 3, 4), dtype=np.int8), ValueError, "at least 2 systems"),
    (np.zeros((2, 3, 4)), TypeError, "integer grades"),
    (-np.ones((2, 3, 4), dtype=np.int8), ValueError, "at \\(system, topic, rank\\) = \\(0, 0, 0\\)"),
])
def test_bad_input_is_reported(bad, err, msg):
    with pytest.raises(err, match=msg):
        ipso.pair_relations(bad)


def test_depth_out_of_range():
    r = ipso.pair_relations(HAND)
    with pytest.raises(ValueError, match="1..3"):
        r.at(4)
    with pytest.raises(ValueError, match="1..3"):
        mm23.table3(r, [5])


@settings(max_examples=40, deadline=None)
@given(hs.integers(2, 5), hs.integers(1, 4), hs.integers(1, 8), hs.integers(1, 3), hs.integers(0, 2**32 - 1))
def test_vectorised_equals_per_pair_loop(S, T, N, G, seed):
    rel = np.random.default_rng(seed).integers(0, G + 1, size=(S, T, N)).astype(np.int8)
    r = ipso.pair_relations(rel)
    for k in range(1, N + 1):
        assert np.array_equal(r.at(k), ipso.pair_relations_reference(rel, k))
        # the relation at k is that of the runs cut at k
        assert np.array_equal(r.at(k), ipso.pair_relations(rel[..., :k]).at(k))


def test_matches_ipso_compare_on_real_shaped_data(small):
    b = small.binary()
    r = ipso.pair_relations(b, small.systems, small.topics)
    for k in (1, 5, 20):
        for row in (0, 7, r.n_pairs - 1):
            i, j = r.first[row], r.second[row]
            assert np.array_equal(r.at(k)[row], ipso.compare(b[i], b[j], k=k).relation)


def test_counts_sum_and_monotone_nonseparability(small):
    r = ipso.pair_relations(small.binary())
    prev = None
    for k in range(1, small.depth + 1):
        c = r.counts(k)
        assert sum(c.values()) == r.n_pairs * len(small.topics)
        if prev is not None:  # MM23 Fig. 4: once non-separable, always; once separated, never equal
            assert c["**"] >= prev["**"] and c["="] <= prev["="]
        prev = c


def test_trec_files_give_the_same_relations(small, tmp_path):
    col = small.subset(systems=list(range(4)), topics=list(range(10)))
    runs, qrels = col.to_trec(tmp_path)
    back = Collection.from_trec(runs, qrels, depth=col.depth)
    order = [back.systems.index(s) for s in col.systems]
    r1 = ipso.pair_relations(col.binary())
    r2 = ipso.pair_relations(back.binary()[order])
    for k in (5, col.depth):
        assert np.array_equal(r1.at(k), r2.at(k))
