"""irscales against trec_eval (pytrec_eval) and ir_measures on drawn collections (issue 47 item 1: find the class,
not the case).

Hypothesis draws qrels (grades -2..4: negative, judged non-relevant, relevant; unjudged documents; topics without a
relevant document) and sets of runs of uneven length (runs shorter than every cut-off, a run shorter than all others,
topics a run lacks, a run topic without judgments, tied scores, scores in any float notation: ``1e-3``, ``1E2``,
``.5``, ``-0.0``, ``+3``), writes them as TREC files, reads them with :func:`irscales.evaluate` at several depths
and compares every trec_eval measure irscales names (``P_k``, ``map_cut_k``, ``ndcg_cut_k``, ``recall_k``,
``success_k``, ``map``, ``recip_rank``, ``Rprec``, ``ndcg``; ``R`` as ``set_recall``) with pytrec_eval, topic by
topic (trec_eval -c: a topic a run lacks is 0), and ERR and RBP with ir_measures (gdeval and cwl_eval). The same
collection given as frames or nested dicts, with integer or string ids, gives the same values bit for bit.

Every difference found is fixed or is a convention with its own test below (``test_convention_…``), documented
where the measure is (:mod:`irscales.measures`) and in the README's measure section:

* AP (``map``, ``map_cut_k``) below N = 41 is the correctly rounded value of the exact fraction, not trec_eval's
  rank-by-rank float sum, which can be an ulp away (:func:`irscales.measures.binary._sp_float`);
* ``P`` and ``F1`` without a cut-off are over the run length N (a run shorter than N padded with non-relevant
  documents, FFF21 §5.1): trec_eval's ``P_N``, not ``set_P`` / ``set_F``, which divide by the documents a run
  retrieved;
* ``ERR`` named without ``max_grade`` is on the qrels' own scale; gdeval's (and ir_measures') ``ERR@k`` is
  ``ERR(max_grade=4)@k``.

The examples are derandomized and few (``make test`` runs this in seconds), and no example database is kept.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irscales.evaluation import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")

#: trec_eval's reading (trec_eval -c): negative grades judged non-relevant, topics without a relevant document kept
#: (every measure 0), every qrels topic evaluated, run topics without judgments skipped.
TREC_EVAL = dict(negative="zero", on_no_relevant="keep", on_uneven_topics="pad", on_missing_topic="skip")
CUTS = (1, 3, 5, 10)
CUT_NAMES = {"P": "P", "map_cut": "map_cut", "ndcg_cut": "ndcg_cut", "recall": "recall", "success": "success"}
WHOLE_RUN = ("map", "recip_rank", "Rprec", "ndcg")
#: trec_eval names whose irscales value is the correctly rounded one, within an ulp of trec_eval's float sum
#: (test_convention_ap_is_correctly_rounded)
WITHIN_AN_ULP = ("map", "map_cut")
SETTINGS = dict(deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

TOPICS = ("1", "2", "10", "101", "33", "T7")
DOCS = ("a", "b", "B", "d1", "d10", "d2", "x", "z9", "Z", "aa", "a-1", "0", "9", "10")
#: scores with ties: equal values, -0.0 beside 0.0, values equal in float32 but not in float64 (1 and 1 + 1e-8)
SCORES = (0.0, -0.0, 0.5, 1.0, 1.00000001, 1e-3, 100.0, 3.0, -2.5, 12.25, 7e-9)


def _spellings(v: float) -> st.SearchStrategy[str]:
    """Texts a run file may hold for the score ``v``, each reading back to exactly ``v``."""
    r = repr(v)
    forms = {r, f"{v:.17e}", f"{v:.17E}", f"{v:.17g}"}
    if v == int(v) and abs(v) < 1e15:
        i = "-0" if math.copysign(1, v) < 0 else str(int(v))
        forms |= {i, f"{i}.", f"{i}E0"}
    if 0 < abs(v) < 1:
        forms.add(r.replace("0.", ".", 1))  # .5, -.5
    if math.copysign(1, v) < 0 and v == 0:
        forms |= {"-0", "-0.0", "-.0e5"}
    out = set(forms)
    for f in forms:
        if not f.startswith("-"):
            out.add("+" + f)
    assert all(float(f) == v and math.copysign(1, float(f)) == math.copysign(1, v) for f in out), (v, out)
    return st.sampled_from(sorted(out))


@st.composite
def collections(draw):
    """(qrels {topic: {doc: grade}}, runs {name: {topic: [(doc, score text)]}}), at least one run retrieving a
    judged topic."""
    topics = draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3, unique=True))
    qrels = {}
    for t in topics:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9, unique=True))
        qrels[t] = {d: draw(st.sampled_from((-2, -1, 0, 0, 1, 1, 2, 3, 4))) for d in docs}
    run_topics = topics + (["999"] if draw(st.booleans()) else [])  # a run topic without judgments
    runs = {}
    for i in range(draw(st.integers(1, 4))):
        run = {}
        for t in run_topics:
            docs = draw(st.lists(st.sampled_from(DOCS), max_size=12, unique=True))  # empty: the run lacks t
            if docs:
                run[t] = [(d, draw(st.sampled_from(SCORES).flatmap(_spellings))) for d in docs]
        if not run:
            run[topics[0]] = [(draw(st.sampled_from(DOCS)), "1")]
        runs[f"r{i}"] = run
    if not any(t in qrels for r in runs.values() for t in r):
        runs["r0"][topics[0]] = [("a", "1")]
    return qrels, runs


def _write(tmp: Path, qrels: dict, runs: dict, rng: np.random.Generator) -> tuple[Path, list[Path]]:
    """TREC files, lines in a shuffled order and ranks that are not the order (trec_eval ignores both)."""
    tmp.mkdir(parents=True, exist_ok=True)
    q = tmp / "qrels.txt"
    q.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items()))
    files = []
    for name, run in runs.items():
        lines = [f"{t} Q0 {d} {int(rng.integers(0, 50))} {s} {name}\n" for t, docs in run.items() for d, s in docs]
        rng.shuffle(lines)
        f = tmp / f"input.{name}"
        f.write_text("".join(lines))
        files.append(f)
    return q, files


def _pytrec(qrels: dict, runs: dict, measures: set[str]) -> dict:
    """pytrec_eval's values, its qrels' negative grades given as 0. trec_eval assumes grades >= 0: it uses -1 and -2
    itself (RELVALUE_NONPOOL, RELVALUE_UNJUDGED in form_res_rels.c), and a grade of -2 or below corrupts
    pytrec_eval's memory (a segfault in a later evaluator of the process). None of the measures compared tells a
    judged non-relevant document from an unjudged one, and irscales reads negative grades as 0 (negative='zero')."""
    ev = pytrec_eval.RelevanceEvaluator({t: {d: max(g, 0) for d, g in docs.items()} for t, docs in qrels.items()},
                                        measures)
    return {name: ev.evaluate({t: {d: float(s) for d, s in docs} for t, docs in run.items()})
            for name, run in runs.items()}


def _needs(qrels: dict, runs: dict) -> tuple[int, int]:
    """The longest run's length and the largest recall base."""
    longest = max(len(docs) for r in runs.values() for docs in r.values())
    top_rb = max(sum(g > 0 for g in docs.values()) for docs in qrels.values())
    return longest, top_rb


def _names(depth: int, longest: int, top_rb: int) -> dict[str, str]:
    """irscales name → pytrec_eval key of every trec_eval measure irscales offers at ``depth``."""
    out = {f"{m}_{k}": f"{t}_{k}" for m, t in CUT_NAMES.items() for k in CUTS if k <= depth}
    if depth >= longest:
        out |= {"map": "map", "recip_rank": "recip_rank", "R": "set_recall"}
    if depth >= min(longest, top_rb):
        out["Rprec"] = "Rprec"
    if depth >= max(longest, top_rb):
        out["ndcg"] = "ndcg"
    out["P"] = f"P_{depth}"  # P without a cut-off is over the run length N = depth
    return out


def _pytrec_measures(depths) -> set[str]:
    ks = ",".join(str(k) for k in sorted(set(CUTS) | set(depths)))
    return {f"P.{ks}", f"map_cut.{ks}", f"ndcg_cut.{ks}", f"recall.{ks}", f"success.{ks}", *WHOLE_RUN, "set_recall"}


def _compare(ev, ref: dict, names: dict[str, str], where: str) -> None:
    for name, key in names.items():
        got = ev.values(name)
        for s in ev.systems:
            want = np.array([ref[s].get(t, {}).get(key, 0.0) for t in got.index])  # trec_eval -c: lacking is 0
            mine = got[s].to_numpy()
            if name == "map" or name.startswith("map_cut"):
                ok = np.allclose(mine, want, rtol=1e-14, atol=0)
            else:
                ok = np.array_equal(mine, want)
            assert ok, f"{where}: {name} of {s}: irscales {mine.tolist()} vs trec_eval {want.tolist()} " \
                       f"(topics {list(got.index)})"


@settings(max_examples=40, **SETTINGS)
@given(data=collections(), seed=st.integers(0, 2**16))
def test_every_trec_eval_measure_equals_pytrec_eval(tmp_path_factory, data, seed):
    qrels, runs = data
    tmp = tmp_path_factory.mktemp("diff")
    qfile, files = _write(tmp, qrels, runs, np.random.default_rng(seed))
    longest, top_rb = _needs(qrels, runs)
    depths = sorted({3, 10, max(longest, top_rb, 1), max(longest, top_rb, 1) + 5})
    ref = _pytrec(qrels, runs, _pytrec_measures(depths))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the notes on skipped topics and low judged@N
        for depth in depths:
            names = _names(depth, longest, top_rb)
            ev = evaluate(qfile, files, list(names), depth=depth, cache=False, **TREC_EVAL)
            _compare(ev, ref, names, f"depth {depth}")


def _frame_routes(qrels: dict, runs: dict, integer_ids: bool):
    """The same collection as a qrels frame and one run frame with a ``run`` column, and as nested dicts; with
    ``integer_ids`` every id written in digits is given as an integer (``T7`` and ``a`` stay strings, so the
    columns mix both)."""
    i = (lambda x: int(x) if x.isdigit() else x) if integer_ids else (lambda x: x)
    q = pd.DataFrame([(i(t), i(d), g) for t, docs in qrels.items() for d, g in docs.items()],
                     columns=["query_id", "doc_id", "relevance"])
    r = pd.DataFrame([(i(t), i(d), float(s), name) for name, run in runs.items() for t, docs in run.items()
                      for d, s in docs], columns=["query_id", "doc_id", "score", "run"])
    q_dict = {i(t): {i(d): g for d, g in docs.items()} for t, docs in qrels.items()}
    dicts = {name: {i(t): {i(d): float(s) for d, s in docs} for t, docs in run.items()} for name, run in runs.items()}
    return (q, r), (q_dict, dicts)


@settings(max_examples=15, **SETTINGS)
@given(data=collections(), integer_ids=st.booleans())
def test_frames_dicts_and_files_give_the_same_values(tmp_path_factory, data, integer_ids):
    qrels, runs = data
    longest, top_rb = _needs(qrels, runs)
    depth = max(longest, top_rb, 10)
    names = list(_names(depth, longest, top_rb))
    qfile, files = _write(tmp_path_factory.mktemp("routes"), qrels, runs, np.random.default_rng(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = evaluate(qfile, files, names, depth=depth, cache=False, **TREC_EVAL).frame
        for q, r in _frame_routes(qrels, runs, integer_ids):
            got = evaluate(q, r, names, depth=depth, cache=False, **TREC_EVAL).frame
            key = ["system", "topic", "measure"]
            a, b = want.sort_values(key).reset_index(drop=True), got.sort_values(key).reset_index(drop=True)
            assert a[key].equals(b[key]) and np.array_equal(a["value"].to_numpy(), b["value"].to_numpy())


# ------------------------------------------------------------------------ ERR and RBP against ir_measures


def _trec_order(run: dict) -> list:
    """A run's (topic, doc, score) in trec_eval's order: topic, score descending, docno descending."""
    rows = [(t, d, float(s)) for t, docs in run.items() for d, s in docs]
    return sorted(rows, key=lambda x: (x[0], -x[2], tuple(-b for b in x[1].encode())))


@settings(max_examples=12, **SETTINGS)
@given(data=collections())
def test_err_and_rbp_equal_ir_measures(data):
    irm = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl")  # ir_measures' RBP provider (cwl_eval)
    qrels, runs = data
    num = {t: str(n) for n, t in enumerate(sorted({*qrels, *(t for r in runs.values() for t in r)}), start=1)}
    qrels = {num[t]: docs for t, docs in qrels.items()}  # gdeval reads topics as numbers
    runs = {name: {num[t]: docs for t, docs in r.items()} for name, r in runs.items()}
    longest, top_rb = _needs(qrels, runs)
    depth = max(longest, 10)
    ours = {"ERR(max_grade=4)@5": irm.ERR @ 5, "ERR(max_grade=4)@10": irm.ERR @ 10,
            "RBP_p08": irm.RBP(rel=1, p=0.8), "RBP_p05": irm.RBP(rel=1, p=0.5)}
    q = [irm.Qrel(t, d, g) for t, docs in qrels.items() for d, g in docs.items()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # gdeval and cwl compare scores as doubles: irscales' float64 reading is theirs
        ev = evaluate(qrels, {n: {t: {d: float(s) for d, s in docs} for t, docs in r.items()} for n, r in runs.items()},
                      list(ours), depth=depth, cache=False, score_precision="float64", **TREC_EVAL)
        for name, run in runs.items():
            scored = [irm.ScoredDoc(t, d, s) for t, d, s in _trec_order(run)]
            ref = {(m.measure, m.query_id): m.value for m in irm.iter_calc(list(ours.values()), q, scored)}
            for lab, m in ours.items():
                mine = ev.values(lab)[name]
                for t, v in mine.items():
                    want = ref.get((m, t), 0.0)
                    tol = 5e-6 + 1e-12 if lab.startswith("ERR") else 1e-12  # gdeval prints 5 decimals
                    assert abs(v - want) <= tol, (lab, name, t, v, want)


# ------------------------------------------------------------------------ the cases and the conventions


def test_ndcg_cut_on_a_run_shorter_than_k_divides_by_the_ideal_dcg_at_k():
    """Issue 47: 8 documents for a topic with 12 relevant ones (grades 2 × 7, 1 × 5), a grade-1 document at rank 7:
    ndcg_cut_10 divides by the ideal DCG@10 (trec_eval's 0.040742), whatever the depth; it was 0.043909, the
    ideal cut at the run's length."""
    qrels = {"1": {**{f"a{i}": 2 for i in range(7)}, **{f"b{i}": 1 for i in range(5)}}}
    docs = [f"x{i}" for i in range(6)] + ["b0", "x7"]
    run = {"1": {d: float(8 - i) for i, d in enumerate(docs)}}
    want = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)["1"]["ndcg_cut_10"]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate([2] * 7 + [1] * 3))
    assert want == pytest.approx(1 / math.log2(8) / ideal, rel=1e-15)
    assert round(want, 6) == 0.040742
    for depth in (10, 30):
        assert evaluate(qrels, run, "ndcg_cut_10", depth=depth).values("ndcg_cut_10").iloc[0, 0] == want
    assert evaluate(qrels, run, "nDCG@10", depth=10).values("nDCG@10").iloc[0, 0] == want


def test_convention_ap_is_correctly_rounded():
    """AP (``map``, ``map_cut_k``) up to N = 40 is SP's exact fraction divided once, equal floats for equal
    fractions; trec_eval sums rank by rank and can be an ulp away (5/6 here). From N = 41, trec_eval's sum."""
    qrels = {"1": {"a": 1, "b": 1}}
    run = {"1": {"a": 3.0, "x": 2.0, "b": 1.0}}  # relevant at ranks 1 and 3: AP = (1 + 2/3) / 2 = 5/6
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "map_cut.3"}).evaluate(run)["1"]
    assert ref["map"] == ref["map_cut_3"] == 0.8333333333333333 != 5 / 6  # trec_eval's float sum
    ev = evaluate(qrels, run, "map,map_cut_3", depth=3)
    assert ev.values("map").iloc[0, 0] == ev.values("map_cut_3").iloc[0, 0] == 5 / 6  # correctly rounded
    assert abs(5 / 6 - ref["map"]) == math.ulp(ref["map"])
    assert evaluate(qrels, run, "map", depth=41).values("map").iloc[0, 0] == ref["map"]


def test_convention_p_and_f1_are_over_the_run_length():
    """P and F1 without a cut-off divide by the run length N (runs padded, FFF21 §5.1): trec_eval's P_N, not
    set_P or set_F, which divide by what the run retrieved."""
    qrels = {"1": {"a": 1, "b": 1, "c": 0}}
    run = {"1": {"a": 2.0, "c": 1.0}}  # 2 documents
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"P.5", "set_P", "set_F", "set_recall"}).evaluate(run)["1"]
    ev = evaluate(qrels, run, "P,F1,R", depth=5)
    assert ev.values("P").iloc[0, 0] == ref["P_5"] == 1 / 5
    assert ref["set_P"] == 1 / 2  # the other convention
    p, r = 1 / 5, ref["set_recall"]
    assert ev.values("R").iloc[0, 0] == r
    assert ev.values("F1").iloc[0, 0] == pytest.approx(2 * p * r / (p + r), rel=1e-15)
    assert ev.values("F1").iloc[0, 0] != pytest.approx(ref["set_F"])
    full = evaluate(qrels, run, "P,F1", depth=2)  # at N = the run's length they are set_P and set_F
    assert full.values("P").iloc[0, 0] == ref["set_P"]
    assert full.values("F1").iloc[0, 0] == pytest.approx(ref["set_F"], rel=1e-15)


def test_convention_err_named_alone_is_on_the_qrels_scale():
    """``ERR`` named without max_grade takes the qrels' largest grade (here 2); gdeval's ERR@k is ERR(max_grade=4)."""
    qrels = {"1": {"a": 2, "b": 1}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    ev = evaluate(qrels, run, "ERR@5,ERR(max_grade=4)@5", depth=5)
    assert ev.values("ERR@5").iloc[0, 0] == pytest.approx(3 / 4 + (1 / 4) * (1 / 4) / 2, rel=1e-15)
    assert ev.values("ERR(max_grade=4)@5").iloc[0, 0] == pytest.approx(3 / 16 + (13 / 16) * (1 / 16) / 2, rel=1e-15)
