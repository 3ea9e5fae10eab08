"""Algorithm 1 of MM23 (irscales.ipso.compare): hand-worked cases, exact ties, shapes and errors,
equality with the closure of Rules 1 and 2, and the metric orders it implies."""

from __future__ import annotations

import itertools
from collections import deque
from fractions import Fraction as Fr

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from irscales import ipso
from irscales.ipso import Relation
from irscales.measures import DCG, RBP, RR, SP, P, Succ

EQ, NI, NS, NX = Relation.EQUAL, Relation.NI, Relation.NS, Relation.NONSEP


def rel(a, b, k=None) -> Relation:
    return Relation(int(ipso.compare(a, b, k).relation))


@pytest.mark.parametrize("a, b, expected", [
    ((1, 1, 0), (1, 0, 0), NI),   # MM23 §2, Rule 1
    ((1, 1, 0), (1, 0, 1), NI),   # MM23 §2, Rule 2
    ((1, 0, 0), (0, 1, 1), NX),   # MM23 Fig. 1's highlighted pair
    ((0, 1, 1), (1, 0, 0), NX),
    ((1, 0, 1), (1, 0, 1), EQ),
    ((0, 0, 0), (0, 0, 1), NS),
    ((0, 1, 0), (0, 0, 1), NI),   # the 1 moved right: still ⪰ (cumul 0, +1, 0)
])
def test_hand_cases(a, b, expected):
    assert rel(a, b) == expected


def test_float_ties_are_exact():
    # floats would give 0.1 + 0.2 - 0.3 = 5.6e-17 > 0, i.e. "non-separable"; exactly it is ns
    assert 0.1 + 0.2 - 0.3 > 0
    assert rel([0.1, 0.2], [0.3, 0.0]) == NS
    assert rel([Fr(1, 10), Fr(2, 10)], [Fr(3, 10), Fr(0)]) == NS
    assert rel([Fr(1, 3), Fr(1, 3), Fr(1, 3)], [Fr(0), Fr(1), Fr(0)]) == NX
    assert rel(np.array([1, 0, 1], dtype=bool), np.array([1, 1, 0], dtype=bool)) == NS


def test_padding_and_cutting():
    assert rel([1], [0, 1, 1], k=3) == NX
    assert rel([1, 0, 0, 1], [0, 1], k=2) == NI  # [1,0] vs [0,1]: cumul 1, 0
    assert rel([1, 0, 0, 1], [0, 1, 1], k=3) == NX
    assert rel([0, 1, 1, 1], [1, 0, 0, 0], k=1) == NS


def test_broadcasting_and_shapes():
    a = ipso.all_serps(3)
    r = ipso.compare(a[:, None, :], a[None, :, :])
    assert r.relation.shape == (8, 8)
    assert np.array_equal(r.relation.T, np.array([0, 2, 1, 3])[r.relation])  # swap S1/S2
    one = ipso.compare([1, 0, 0], a)
    assert one.relation.shape == (8,)
    # [1,0,0] vs 000, 001, 010 -> ni; 011 -> **; 100 -> =; 101, 110, 111 -> ns
    assert one.counts() == {"=": 1, "ni": 3, "ns": 3, "**": 1}
    assert list(one.labels()[:2]) == ["ni", "ni"]


@pytest.mark.parametrize("a, b, k, msg", [
    (1, [1], None, "scalar"),
    ([1, 0], [1, 0, 0], None, "different lengths"),
    ([1, float("nan")], [1, 0], None, "finite"),
    (["a", "b"], [1, 0], None, "numbers"),
    ([1, 0], [1, 0], 0, "positive integer"),
    (np.zeros((2, 3)), np.zeros((3, 3)), None, "do not broadcast"),
])
def test_bad_input_messages(a, b, k, msg):
    with pytest.raises((ValueError, TypeError), match=msg):
        ipso.compare(a, b, k)


def rules_closure(k: int) -> dict[tuple, set]:
    """For binary k-SERPs, every SERP reachable by Rule 1 (lower one element) or Rule 2 (swap a 1
    rightwards with a 0), transitively — the definition of ⪰ in MM23 §2, by BFS."""
    reach = {}
    for s in itertools.product((0, 1), repeat=k):
        seen, todo = {s}, deque([s])
        while todo:
            x = todo.popleft()
            nxt = []
            for i in range(k):
                if x[i] == 1:
                    nxt.append(x[:i] + (0,) + x[i + 1:])
                    for j in range(i + 1, k):
                        if x[j] == 0:
                            y = list(x)
                            y[i], y[j] = 0, 1
                            nxt.append(tuple(y))
            for y in nxt:
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        reach[s] = seen
    return reach


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_algorithm1_equals_rules(k):
    reach = rules_closure(k)
    serps = ipso.all_serps(k)
    g = ipso.relation_grid(serps)
    for i, a in enumerate(map(tuple, serps.tolist())):
        for j, b in enumerate(map(tuple, serps.tolist())):
            ge, le = b in reach[a], a in reach[b]
            assert g[i, j] == int(ge and not le) + 2 * int(le and not ge) + 3 * int(not ge and not le), (a, b)


serp_pairs = hs.integers(1, 12).flatmap(lambda k: hs.tuples(
    hs.lists(hs.integers(0, 1), min_size=k, max_size=k), hs.lists(hs.integers(0, 1), min_size=k, max_size=k)))


gain_pairs = hs.integers(1, 8).flatmap(lambda k: hs.tuples(
    hs.lists(hs.sampled_from([0.0, 0.1, 0.2, 0.3, 0.8, 1.0]), min_size=k, max_size=k),
    hs.lists(hs.sampled_from([0.0, 0.1, 0.2, 0.3, 0.8, 1.0]), min_size=k, max_size=k)))


@settings(max_examples=200, deadline=None)
@given(gain_pairs)
def test_vectorised_equals_reference_loop_on_exact_fractions(pair):
    a, b = pair
    fa, fb = [Fr(repr(x)) for x in a], [Fr(repr(x)) for x in b]
    assert rel(a, b) == ipso.compare_reference(fa, fb, len(a))
    assert rel(b, a) == Relation([0, 2, 1, 3][rel(a, b)])


@settings(max_examples=200, deadline=None)
@given(serp_pairs)
def test_ni_pairs_are_ordered_by_every_metric(pair):
    """If S1 ⪰ S2 then every metric honouring Rules 1–2 gives M(S1) ≥ M(S2) (exact scores)."""
    a, b = (np.array(x) for x in pair)
    r = rel(a, b)
    k = len(a)
    metrics = [P(), RBP(p=0.5), RBP(p=0.8), RBP(p=0.95), RR(), Succ(), SP()]
    for m in metrics:
        ma, mb = m.exact(a)[()], m.exact(b)[()]
        if r in (NI, EQ):
            assert ma >= mb, (m, a, b)
        if r in (NS, EQ):
            assert ma <= mb, (m, a, b)
    if r in (NI, EQ):  # DCG with log discounts: float, but a ⪰ relation is never close
        assert DCG(discount="log2p1")(a) >= DCG(discount="log2p1")(b) - 1e-12


@settings(max_examples=200, deadline=None)
@given(serp_pairs)
def test_nonseparable_pairs_are_ordered_both_ways_by_some_metric(pair):
    """MM23 §2: a non-separable pair may be ordered either way. Prec@d at the depth where S1 is
    first ahead puts S1 strictly above S2; at the depth where S2 is first ahead, below."""
    a, b = (np.array(x) for x in pair)
    r = ipso.compare(a, b)
    if Relation(int(r.relation)) != NX:
        assert int(r.nonseparable_from) == 0
        return
    dp, dn = int(r.first_pos), int(r.first_neg)
    assert P(k=dp).exact(a)[()] > P(k=dp).exact(b)[()]
    assert P(k=dn).exact(a)[()] < P(k=dn).exact(b)[()]
    assert int(r.nonseparable_from) == max(dp, dn)
