"""judged@k as the ecosystem defines it (issue 47 item 4): ir_measures' ``Judged@k`` divides the judged documents
of a run's top k by min(k, its length), so a rank a run does not have never counts as judged; and judged@N comes
from the same reading as the scores (issue 49 item 1: each run file is read once)."""

import warnings

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from irscales import evaluate
from irscales.data import trec, _trec_cache as trec_cache
from irscales.data.collection import Collection
from irscales.data._judged import JUDGED_CONVENTION, indicator_qrels, judged_at, judged_fraction
from irscales.data._trec_arrays import QrelsIndex


def _quiet_evaluate(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # uneven topics, topics without judgments: not what these tests are about
        return evaluate(*args, **kw)


def test_a_short_run_is_not_better_judged_for_being_short():
    """The issue's case: at judged@1000 a run of a few documents showed as the best judged (the ranks past its
    end counted as judged). Now only its own documents count: one unjudged document in four is 0.75, at any
    N; the long run's 0.5 stays 0.5."""
    qrels = {"1": {f"j{i}": int(i < 2) for i in range(100)}}
    short = {"1": {"j0": 4.0, "j1": 3.0, "j2": 2.0, "u0": 1.0}}  # 3 of its 4 documents judged
    long = {"1": {(f"j{i}" if i % 2 == 0 else f"u{i}"): float(200 - i) for i in range(100)}}  # 50 of 100
    for depth in (4, 100, 1000):
        ev = _quiet_evaluate(qrels, {"short": short, "long": long}, "P@4", depth=depth, judged_threshold=0)
        assert ev.judged().to_dict() == pytest.approx({"short": 0.75, "long": 0.5})
    # the convention before issue 47 would have given (3 + 996) / 1000 = 0.999 to the short run at N = 1000
    lone = {"1": {"u0": 1.0}}  # a run of one unjudged document is 0 judged at every N
    for depth in (1, 10, 1000):
        ev = _quiet_evaluate(qrels, {"lone": lone}, "P@1", depth=depth, judged_threshold=0)
        assert ev.judged()["lone"] == 0.0


def test_a_topic_a_run_retrieved_nothing_for_is_0():
    """ir_measures gives a topic of the qrels that a run lacks its default, 0 (every measure is 0 there, as
    trec_eval -c), and the mean is over every topic."""
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    runs = {"A": {"1": {"a": 1.0}, "2": {"b": 1.0}}, "B": {"1": {"a": 1.0}}}  # B lacks topic 2: an empty run
    ev = _quiet_evaluate(qrels, runs, "P@5", depth=5, judged_threshold=0)
    assert ev.judged(per_topic=True)["B"].to_dict() == {"1": 1.0, "2": 0.0}
    assert ev.judged().to_dict() == {"A": 1.0, "B": 0.5}


def test_judged_at_refuses_a_cut_shallower_than_its_counts():
    qrels = {"1": {"a": 1, "b": 0}}
    runs = {"A": {"1": {"a": 3.0, "x": 2.0, "b": 1.0}}}
    ev = _quiet_evaluate(qrels, runs, "P@3", depth=3, judged_threshold=0)
    col = ev.collection
    assert judged_at(col).tolist() == [[2 / 3]] and judged_at(col, 10).tolist() == [[2 / 3]]
    with pytest.raises(ValueError, match="counted in the top 3 ranks; read the runs at depth 2"):
        judged_at(col, 2)
    bare = Collection(rel=col.rel, judgments=col.judgments, run_lengths=col.run_lengths, topics=col.topics,
                      systems=col.systems, provenance="simulated: no runs")
    with pytest.raises(ValueError, match="not read from runs and qrels"):
        judged_at(bare)


def test_the_convention_is_named():
    assert "ir_measures' Judged@k" in JUDGED_CONVENTION and "min(k" in JUDGED_CONVENTION


# ------------------------------------------------------------------ equal to ir_measures' Judged@k

_DOCS = [f"d{i}" for i in range(12)]


@st.composite
def _inputs(draw):
    """Qrels (grades -1..3 read as trec_eval does, judged non-relevant documents, topics without a relevant one)
    and runs of uneven length (empty topics, topics without judgments, a run shorter than every cut-off);
    scores distinct within a topic (the order of tied scores is trec_eval's here, ir_measures' its own)."""
    topics = ["1", "2", "3", "10"]
    qrels = {}
    for t in topics[:draw(st.integers(1, 4))]:
        judged = draw(st.lists(st.sampled_from(_DOCS), unique=True, min_size=1, max_size=10))
        qrels[t] = {d: draw(st.integers(-1, 3)) for d in judged}
    runs = {}
    for s in range(draw(st.integers(1, 3))):
        run = {}
        for t in topics:
            docs = draw(st.lists(st.sampled_from(_DOCS), unique=True, max_size=12))
            if docs:
                scores = draw(st.lists(st.integers(-50, 50), unique=True, min_size=len(docs), max_size=len(docs)))
                run[t] = {d: float(x) / 4 for d, x in zip(docs, scores)}
        if run:
            runs[f"s{s}"] = run
    if not runs:
        runs["s0"] = {topics[0]: {_DOCS[0]: 1.0}}
    return qrels, runs, draw(st.sampled_from([1, 2, 3, 5, 10, 20]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_inputs())
def test_judged_at_k_equals_ir_measures_judged_at_k(case):
    qrels, runs, k = case
    if not set(qrels) & {t for r in runs.values() for t in r}:
        return  # irscales refuses such input: no run topic is in the qrels
    # every topic of the qrels kept (trec_eval -c; ir_measures scores each with its default when a run lacks it),
    # grades below 0 read as judged not relevant (as trec_eval, and ir_measures counts them as judged)
    ev = _quiet_evaluate(qrels, runs, f"P@{k}", depth=k, judged_threshold=0, negative="zero", on_no_relevant="keep",
                         on_uneven_topics="pad")
    per = ev.judged(per_topic=True)
    measure = ir_measures.Judged @ k
    flat_qrels = [ir_measures.Qrel(q, d, g) for q, docs in qrels.items() for d, g in docs.items()]
    for s, run in runs.items():
        flat_run = [ir_measures.ScoredDoc(q, d, x) for q, docs in run.items() for d, x in docs.items()]
        theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], flat_qrels, flat_run)}
        assert per[s].to_dict() == pytest.approx(theirs, rel=0, abs=1e-15)
        agg = ir_measures.calc_aggregate([measure], flat_qrels, flat_run)[measure]
        assert ev.judged()[s] == pytest.approx(agg, rel=1e-12)


# ------------------------------------------------------------------ one reading: files, the cache, every path

def _files(tmp_path):
    (tmp_path / "runs").mkdir()
    trec.write_qrels(tmp_path / "qrels", ["1", "1", "1", "2", "2"], ["a", "b", "c", "d", "e"], [1, 0, 2, 0, 1])
    trec.write_run(tmp_path / "runs" / "r1", ["1"] * 5 + ["2"] * 2, ["a", "x", "b", "y", "c", "d", "z"],
                   [5, 4, 3, 2, 1, 2, 1], "r1")
    trec.write_run(tmp_path / "runs" / "r2", ["1", "2", "2", "2"], ["q", "e", "d", "w"], [1, 3, 2, 1], "r2")
    return tmp_path / "qrels", tmp_path / "runs"


@pytest.mark.parametrize("compiled", [True, False])
def test_the_judged_bits_are_the_same_on_the_compiled_and_the_general_path(tmp_path, compiled):
    qrels, runs = _files(tmp_path)
    index = QrelsIndex(trec.read_qrels(qrels))
    h = trec_cache.judged_run(runs / "r1", "float32", index, None, compiled=compiled)
    assert np.unpackbits(h.judged, count=7).tolist() == [1, 0, 1, 0, 1, 1, 0]  # a x b y c | d z
    assert h.judged_counts(3).tolist() == [2, 1] and h.judged_counts(1000).tolist() == [3, 1]


def test_judged_at_n_from_files_cold_and_warm_and_against_the_indicator(tmp_path, monkeypatch):
    """From files: the counts of the one reading, equal with an empty and a filled cache of parsed runs, and equal
    to judged@N read (a second time) against the judged indicator, the route of notebook 08."""
    qrels, runs = _files(tmp_path)
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "cache"))  # empty: the first call parses
    monkeypatch.setattr(trec_cache, "CACHED_BYTES", 0)  # small files cached too
    cold = _quiet_evaluate(qrels, runs, "P@3", depth=3, judged_threshold=0)
    assert len(list((tmp_path / "cache" / "parsed-runs").glob("*.judged"))) == 2
    for name in ("scan_run", "parse_run_file"):  # warm: from the cache's entries, never parsed again
        monkeypatch.setattr(trec_cache, name, lambda *a, **kw: pytest.fail("parsed again: a cache entry was refused"))
    warm = _quiet_evaluate(qrels, runs, "P@3", depth=3, judged_threshold=0)
    monkeypatch.undo()
    expect = {"r1": (2 / 3 + 1 / 2) / 2, "r2": (0 + 2 / 3) / 2}
    assert cold.judged().to_dict() == pytest.approx(expect) and warm.judged().to_dict() == pytest.approx(expect)
    ind = Collection.from_trec(runs, indicator_qrels(trec.read_qrels(qrels)), depth=3, on_no_relevant="keep",
                               cache=False)
    np.testing.assert_array_equal(judged_fraction(ind, 3), judged_at(cold.collection))


class _Counted:
    """A file object that adds the bytes read through it to ``got[path]``."""

    def __init__(self, fh, path, got):
        self._fh, self._path, self._got = fh, path, got

    def _add(self, n):
        self._got[self._path] = self._got.get(self._path, 0) + n
        return n

    def read(self, *a):
        b = self._fh.read(*a)
        self._add(len(b))
        return b

    def readinto(self, buf):
        return self._add(self._fh.readinto(buf) or 0)

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.close()


@pytest.mark.parametrize("compiled", [True, False])
def test_each_run_file_is_read_once_per_evaluate(tmp_path, monkeypatch, compiled):
    """Issue 49 item 1: judged@N, the scores and the parsed-run cache from one reading of each file: in one
    ``evaluate`` call, cold and then warm, the bytes read from each run file add up to its size at most once
    (and the two bytes that tell a gzipped file: the reader's choice of parser peeks at them)."""
    import builtins

    qrels, runs = _files(tmp_path)
    sizes = {str(p): p.stat().st_size for p in runs.iterdir()}
    got: dict[str, int] = {}
    real_open = builtins.open

    def counting_open(file, *a, **kw):
        fh = real_open(file, *a, **kw)
        return _Counted(fh, str(file), got) if str(file) in sizes else fh

    monkeypatch.setattr(trec_cache, "COMPILED_READER_BYTES", 0 if compiled else 2**62)
    monkeypatch.setattr(trec_cache, "CACHED_BYTES", 0)  # the warm call reads the cache's entries
    monkeypatch.setattr(builtins, "open", counting_open)
    for _ in range(2):  # cold, then warm (the cache replaces the parse; the file's bytes are read and hashed)
        got.clear()
        _quiet_evaluate(qrels, runs, "P@3", depth=3, cache=True)
        assert got.keys() == sizes.keys()
        for p, n in got.items():
            assert sizes[p] <= n <= sizes[p] + 2, (p, n, sizes[p])


def test_a_collection_keeps_its_judged_counts_through_subset_save_and_load(tmp_path):
    qrels, runs = _files(tmp_path)
    col = Collection.from_trec(runs, qrels, depth=3, cache=False)
    assert col.judged.tolist() == [[2, 1], [0, 2]]
    assert col.subset(topics=["2"], systems=["r2"]).judged.tolist() == [[2]]
    back = Collection.load(col.save(tmp_path / "saved"))
    np.testing.assert_array_equal(back.judged, col.judged)
    with pytest.raises(ValueError, match="judged must be"):
        Collection(rel=col.rel, judgments=col.judgments, run_lengths=col.run_lengths, topics=col.topics,
                   systems=col.systems, provenance="x", max_grade=col.max_grade, judged=col.judged + 5)
