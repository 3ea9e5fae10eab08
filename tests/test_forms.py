"""Forms as registered modules (issue 50, item 1): a measure's numerator declares its form by name, the form object
(:mod:`irscales.enumeration.forms`) says what the enumeration can do with it, and no code outside ``forms/`` asks a
form's name. Succ's interval version comes through this path (a new form, ``any_hit``)."""

from __future__ import annotations

import re
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from irscales import enumeration as E
from irscales import measures as M
from irscales.enumeration import counting, forms, _kernels as kernels
from irscales.enumeration.ties import TIES, rank_values

PKG = Path(__file__).resolve().parents[1] / "src" / "irscales"
#: The issue's pattern for a test on a form's name, and its variants (``.form ==``, ``form not in``, ``form in (``).
FORM_TEST = re.compile(r"form (==|in|!=|not in)|\.form\s*(==|!=|in\b)|case \"(grade_sum|additive|geometric|sp|"
                       r"first_hit|any_hit|discounted)\"")


def all_runs(N: int) -> np.ndarray:
    return E.runs_from_ids(np.arange(2**N), N).astype(np.int64)


def test_no_code_outside_the_forms_asks_a_forms_name():
    hits = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel.startswith("enumeration/forms/"):
            continue
        hits += [f"{rel}:{i}: {line.strip()}" for i, line in enumerate(path.read_text().splitlines(), 1)
                 if FORM_TEST.search(line)]
    assert not hits, "\n".join(hits)


def test_every_declared_form_is_registered_and_each_measure_finds_its_own():
    declared = {cls().numerator().form for name, cls in M.REGISTRY.items()
                if name not in ("Twist",)} | {M.P(k=3).form, M.Succ().form}
    assert declared - {""} <= set(forms.FORMS)
    cases = {"P": "grade_sum", "R": "grade_sum", "gP": "grade_sum", "P@5": "additive", "RBTO(c=2)": "additive",
             "RBP_p08": "geometric", "gRBP_p05": "geometric", "SP": "sp", "AP": "sp", "RR": "first_hit",
             "Succ": "any_hit", "DCG_b02": "discounted", "gnDCG_log2p1": "discounted"}
    for name, form in cases.items():
        assert forms.form_of(M.parse(name)) is forms.FORMS[form], name
    for name in ("ERR", "F1", "gR", "Rprec", "Succ@5", "AP@10"):
        assert forms.form_of(M.parse(name)) is forms.NO_FORM, name


def test_a_measure_declaring_an_unknown_form_is_told_so():
    class Odd(M.Measure):
        form = "no_such_form"

    with pytest.raises(ValueError, match="declares the form 'no_such_form', which no registered form has"):
        kernels.supported(Odd())


# ------------------------------------------------------------------------------------------------- Succ (any_hit)


def _brute_phi(values: list, ties: str) -> np.ndarray:
    """FFF21 eq. (2) and §7.1.3 by their definitions over all runs' exact values."""
    return np.asarray(rank_values(values, ties), dtype=object)


@pytest.mark.parametrize("N", [1, 2, 3, 5, 8])
def test_succ_phi_is_the_brute_force_rank_over_all_runs_on_every_route(N):
    rel = all_runs(N)
    values = M.Succ().exact(rel).tolist()
    assert sorted(set(values)) == [0, 1] and values.count(0) == 1  # two values: the empty run alone is 0
    for t in TIES:
        want = _brute_phi(values, t)
        for method in ("count", "engine", "closed"):
            got = E.ranked_runs(M.Succ(), rel, t, method=method, cache=False, workers=1)
            assert [Fraction(x) for x in got.tolist()] == [Fraction(x) for x in want.tolist()], (method, t)
    s = E.scale(M.Succ(), N, method="closed")
    assert s.values.tolist() == [0.0, 1.0] and s.counts.tolist() == [1, 2**N - 1] and s.exact_values() == [0, 1]
    eng = E.scale(M.Succ(), N, method="engine", cache=False, workers=1)
    assert eng.counts.tolist() == s.counts.tolist() and eng.n_distinct == counting.n_distinct(M.Succ(), N) == 2


def test_succ_is_counted_at_any_depth_and_its_unq_interval_value_is_itself():
    assert counting.counting_depth(M.Succ())[0] == float("inf") and counting.counting_depth(M.Succ(), 2)[0] == 0
    runs = np.zeros((3, 10), np.int8)  # the first 10 of 5,000 ranks: the rest is padding, never allocated
    runs[1, 9] = runs[2, 0] = 1
    assert counting.phi_runs(M.Succ(), runs, "max", N=5000).tolist() == [1, 2**5000, 2**5000]
    r = E.choose_route("Succ", 10_000)
    assert r.kind == "count" and r.exact and r.K("unq") == 2 and r.K("min") == 2**10_000


def test_succ_at_k_gets_interval_values_through_evaluate():
    from irscales import evaluate

    qrels = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"a": 0, "d": 1}, "3": {"z": 1}}
    runs = {"x": {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"d": 2.0, "a": 1.0}, "3": {"q": 1.0}},
            "y": {"1": {"b": 3.0, "c": 2.0}, "2": {"a": 2.0, "q": 1.0}, "3": {"a": 1.0}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # judged@N of a toy pool
        ev = evaluate(qrels, runs, "Succ@10,success_1", depth=10, ranked=True, phi=True, cache=False)
        mid = evaluate(qrels, runs, "Succ@10", depth=10, ranked=True, ties="mid", cache=False)
    plain = ev.values("Succ@10", exact=True).to_numpy().tolist()
    assert ev.interval("Succ@10").to_numpy().tolist() == plain  # two values: the interval value is Succ itself
    assert ev.interval("Succ@10", raw=True).to_numpy().tolist() == [[2, 2], [2, 1], [1, 1]]  # topics × runs
    t = ev.scale_table().set_index("measure")
    assert t.loc["Succ@10", "K"] == 2 and t.loc["Succ@10", "N"] == 10 and t.loc["success_1", "N"] == 1
    assert t.loc["Succ@10", "route"] == "count" and t.loc["Succ@10", "exact"] and t.loc["Succ@10", "affine"]
    # mid ranks the runs: a hit shares 2^10 − 1 runs above the empty one, φ = (2 + 2^10)/2
    assert mid.interval("Succ@10", raw=True).to_numpy().tolist() == [[513, 513], [513, 1], [1, 1]]
    assert mid.interval("Succ@10").loc["1", "x"] == Fraction(512, 1023)
