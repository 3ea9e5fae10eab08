"""Fer17's measures (§3.3, irscales.papers.fer17.measures): hand-computed scores on a hand-built collection,
canonical keys and the paper's labels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from irscales.data.collection import Collection
from irscales.measures import parse
from irscales.papers import fer17



# --------------------------------------------------------------------------- fixtures built in code


def tiny_collection() -> Collection:
    """2 systems x 2 topics, depth 20. Topic 'b1' is on a binary track, 'g1' on a graded one."""
    N = 20
    rel = np.zeros((2, 2, N), dtype=np.int8)
    rel[0, 0, [0, 2]] = 1          # s0 on b1: relevant at ranks 1 and 3
    rel[1, 0, [1]] = 1             # s1 on b1: relevant at rank 2
    rel[0, 1, [0]] = 2             # s0 on g1: highly relevant at 1, relevant at 12
    rel[0, 1, [11]] = 1
    rel[1, 1, [1, 2]] = 1          # s1 on g1: relevant at 2 and 3
    judgments = np.array([[10, 4, 0],    # b1: RB = 4
                          [10, 2, 1]])   # g1: RB = 3, one highly relevant
    return Collection(rel=rel, judgments=judgments, run_lengths=np.full((2, 2), N),
                      topics=("b1", "g1"), systems=("s0", "s1"), provenance="simulated: hand-built",
                      max_grade=2, topic_labels={"track": ("TB", "TG"), "corpus": ("c1", "c2")})


def jk10(i: int) -> float:  # Järvelin–Kekäläinen log10 discount, 1-based rank
    return 1.0 if i < 10 else 1.0 / math.log10(i)


def test_fer17_measures_hand_computed():
    sc = fer17.score_matrices(tiny_collection())
    assert list(sc) == list(fer17.MEASURES)
    assert all(v.shape == (2, 2) for v in sc.values())  # (topics, systems)
    # AP: s0 on b1 = (1/1 + 2/3)/4; s1 on g1 = (1/2 + 2/3)/3
    assert sc["AP"][0, 0] == pytest.approx((1 + 2 / 3) / 4)
    assert sc["AP"][1, 1] == pytest.approx((1 / 2 + 2 / 3) / 3)
    assert sc["P@10"][0, 0] == pytest.approx(0.2) and sc["P@10"][1, 0] == pytest.approx(0.1)
    # R-prec: s0 on g1, RB = 3: one relevant in the top 3
    assert sc["Rprec"][1, 0] == pytest.approx(1 / 3)
    assert sc["RBP_p08"][0, 0] == pytest.approx(0.2 * (1 + 0.8 ** 2))
    # nDCG on g1, s0: gains 10 at rank 1, 5 at rank 12; ideal 10, 5, 5 (0/5/10 scale cancels)
    dcg = 10 * jk10(1) + 5 * jk10(12)
    idcg = 10 * jk10(1) + 5 * jk10(2) + 5 * jk10(3)
    assert sc["gnDCG_b10"][1, 0] == pytest.approx(dcg / idcg)
    # nDCG@20 equals nDCG here (everything happens in the top 20) ...
    assert sc["gnDCG_b10@20"][1, 0] == pytest.approx(dcg / idcg)
    # ERR: g_max is the track's own highest grade: 1 on the binary track (R = 1/2), 2 on the graded
    assert sc["ERR"][0, 0] == pytest.approx(0.5 + 0.5 * 0.5 / 3)
    assert sc["ERR"][0, 1] == pytest.approx(0.5 / 2)
    assert sc["ERR"][1, 0] == pytest.approx(3 / 4 + (1 / 4) * (1 / 4) / 12)


def test_ndcg_full_run_differs_from_cutoff_20():
    col = tiny_collection()
    rel2 = np.concatenate([col.rel, np.zeros((2, 2, 20), np.int8)], axis=-1)
    rel2[1, 1, 29] = 2  # a highly relevant document at rank 30: counts in nDCG, not in nDCG@20
    col2 = Collection(rel=rel2, judgments=col.judgments, run_lengths=np.full((2, 2), 40), topics=col.topics,
                      systems=col.systems, provenance=col.provenance, max_grade=2, topic_labels=col.topic_labels)
    sc = fer17.score_matrices(col2)
    assert sc["gnDCG_b10"][1, 1] > sc["gnDCG_b10@20"][1, 1]


def test_twist_is_the_eighth_measure_of_table1():
    from irscales.measures import Twist
    from irscales.papers.fer17.measures import TABLE1_MEASURES, TABLE1_NAMES

    assert TABLE1_MEASURES == fer17.MEASURES + ("Twist",) and TABLE1_NAMES[-1] == "Twist"
    col = tiny_collection()
    sc = fer17.score_matrices(col, TABLE1_MEASURES)
    assert np.array_equal(sc["Twist"], col.evaluate(Twist()), equal_nan=True)


def test_fer17_measure_errors():
    with pytest.raises(KeyError, match="unknown Fer17 measure"):
        fer17.score_matrices(tiny_collection(), names=("AP", "RR"))
    with pytest.raises(ValueError, match="max_grade"):
        fer17.fer17_measures(0)


def test_keys_are_canonical_and_labels_are_the_papers():
    assert fer17.MEASURES == ("AP", "P@10", "Rprec", "RBP_p08", "gnDCG_b10", "gnDCG_b10@20", "ERR")
    assert fer17.MEASURE_NAMES == ("AP", "P@10", "R-prec", "RBP", "nDCG", "nDCG@20", "ERR")
    for key, (measure, cut) in fer17.fer17_measures().items():
        assert key == (measure.key if cut is None else f"{measure.key}@{cut}") == parse(key).key
    assert fer17.label("RBP_p08") == "RBP" and fer17.label("AP") == "AP"
    assert list(fer17.labelled({"Rprec": 1, "P@10": 2})) == ["R-prec", "P@10"]
