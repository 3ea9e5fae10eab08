"""The one call (:mod:`irscales.evaluation`): on real runs of the shipped Cranfield collection (always) and on
real TREC-8 runs (when present) its per-topic values equal ``irscales scores`` and pytrec_eval's; the
interval-scaled values are exact, their normalisation is the affine map of φ, and every test decision is the
same on both; every input form reads alike."""

from __future__ import annotations

import os
import warnings
from fractions import Fraction
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from irscales import paths
from irscales.cli import main
from irscales.data import gop
from irscales.data.datasets import available
from irscales.data._gop_index import grid_systems
from irscales.data.trec import read_qrels, read_run
from irscales import measures as M
from irscales.enumeration.bounded import reach_within
from irscales.evaluation import RANKED_DEFAULT_DEPTH, evaluate, measure_specs
from irscales.interval import NoIntervalScaleError
from irscales.stats import _significance as S

pytrec_eval = pytest.importorskip("pytrec_eval")

#: trec_eval names (ours) → pytrec_eval's keys, and the measures asked of pytrec_eval
TREC_NAMES = {"map": "map", "P_10": "P_10", "ndcg_cut_10": "ndcg_cut_10", "recip_rank": "recip_rank",
              "Rprec": "Rprec", "ndcg": "ndcg", "recall_100": "recall_100", "map_cut_50": "map_cut_50",
              "map_cut_10": "map_cut_10"}
PYTREC = {"map", "P.10", "ndcg_cut.10", "recip_rank", "Rprec", "ndcg", "recall.100", "map_cut.10,50"}
TREC_EVAL = dict(negative="zero", on_missing_topic="skip", on_no_relevant="keep")
#: the one name whose value is, on purpose, not trec_eval's to the last bit but the correctly rounded one
#: (measures.binary._sp_float; test_map_cut_below_41_is_the_correctly_rounded_value)
WITHIN_AN_ULP = {"map_cut_10"}


@pytest.fixture(scope="module")
def cranfield(tmp_path_factory):
    if not available("cranfield"):
        pytest.skip("the Cranfield collection is not available (data/collections/ is part of the repository)")
    d = tmp_path_factory.mktemp("cranfield")
    first = [s for s in grid_systems() if (s.stop, s.lug) == ("lucene", "porter")][:6]
    files, q = gop.write_runs("cranfield", first, d, depth=100)
    return d / "runs", q


def _pytrec(runs: list[Path], qrels: Path) -> dict:
    q = read_qrels(qrels, negative="zero")
    qd: dict = {}
    for t, doc, g in q[["topic", "docno", "rel"]].itertuples(index=False):
        qd.setdefault(t, {})[doc] = int(g)
    ev = pytrec_eval.RelevanceEvaluator(qd, PYTREC)
    out = {}
    for f in runs:
        r = read_run(f)
        rd: dict = {}
        for t, doc, s in r[["topic", "docno", "score"]].itertuples(index=False):
            rd.setdefault(t, {})[doc] = float(s)
        out[r.attrs["system"]] = ev.evaluate(rd)
    return out


def _parity(rundir: Path, qrels: Path, runs: list[Path]) -> None:
    ev = evaluate(qrels, runs, list(TREC_NAMES), **TREC_EVAL)
    ref = _pytrec(runs, qrels)
    r = CliRunner().invoke(main, ["scores", *map(str, runs), "--qrels", str(qrels), "--measures", ",".join(TREC_NAMES),
                                  "--negative", "zero", "--on-missing-topic", "skip", "--on-no-relevant", "keep",
                                  "--format", "csv"])
    assert r.exit_code == 0, r.output
    cli = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    for name, key in TREC_NAMES.items():
        mine = ev.values(name)
        for s in ev.systems:
            got = mine[s].to_numpy()
            want = np.array([ref[s][t][key] for t in mine.index])
            label = ev.given[name]  # the name with its N where it carries none (map → map@<longest run>)
            printed = cli[(cli.system == s) & (cli.measure == label) & (cli.topic != "all")].set_index("topic")["value"]
            assert np.array_equal(printed.loc[list(mine.index)].to_numpy(), got), (name, s)  # CLI = API, every bit
            if name in WITHIN_AN_ULP:  # trec_eval's rank-by-rank sum carries a few ulps of rounding
                assert np.allclose(got, want, rtol=1e-14, atol=0), (name, s)
            else:
                assert np.array_equal(got, want), (name, s, np.abs(got - want).max())


@pytest.mark.data
def test_values_equal_irscales_scores_and_pytrec_eval_on_cranfield(cranfield):
    rundir, qrels = cranfield
    _parity(rundir, qrels, sorted(rundir.iterdir()))


@pytest.mark.data
def test_values_equal_irscales_scores_and_pytrec_eval_on_real_trec8_runs():
    track = paths.trec_track("T08")
    if track is None:
        pytest.skip("the real TREC-8 runs are not here (IRSCALES_TREC or IRSCALES_SHARED/trec)")
    runs = sorted(track.runs.iterdir())[:6]
    _parity(track.runs, track.qrels, runs)


@pytest.mark.data
def test_map_cut_below_41_is_the_correctly_rounded_sum_over_the_recall_base(cranfield):
    # why one trec_eval name may differ from trec_eval by an ulp: up to rank 40, AP is SP rounded once from
    # its exact value, then divided by RB, so that equal exact values are equal floats (ties decide the
    # interval scale); trec_eval's rank-by-rank sum is not
    rundir, qrels = cranfield
    ev = evaluate(qrels, rundir, "map_cut_10,AP@10", **TREC_EVAL)
    col = ev.collection
    sp = col.evaluate(measure_specs("SP")[0][1], 10, exact=True)  # (T, S) Fractions
    want = np.vectorize(float)(sp) / np.where(col.rb > 0, col.rb, 1)[:, None]
    want = np.where(col.rb[:, None] > 0, want, 0.0)
    assert np.array_equal(ev.values("map_cut_10").to_numpy(), want)
    assert np.array_equal(ev.values("AP@10").to_numpy(), want)


@pytest.mark.data
def test_interval_values_are_the_affine_map_of_phi_and_decide_alike(cranfield):
    rundir, qrels = cranfield
    ev = evaluate(qrels, rundir, "AP,P@10,RR,RBP_p08,nDCG_b02", ranked=True, phi=True)
    assert ev.depth == RANKED_DEFAULT_DEPTH  # the one default rule
    table = ev.scale_table().set_index("measure")
    for lab in ev.measures:
        K = int(table.loc[lab, "K"])
        phi = ev.interval(lab, raw=True).to_numpy()
        unit = ev.interval(lab).to_numpy()
        assert all(isinstance(x, int) for x in phi.ravel())
        assert (unit == np.vectorize(lambda x: Fraction(x - 1, K - 1), otypes=[object])(phi)).all()
        # the means: normalised mean = (raw mean − 1)/(K − 1), exactly
        for s in range(phi.shape[1]):
            assert sum(unit[:, s]) / len(unit) == (Fraction(sum(phi[:, s]), len(phi)) - 1) / (K - 1)
        # every test statistic, p-value and decision is the same float on both
        a = S.significance_tests(phi, systems=ev.systems, pvalues=True)
        b = S.significance_tests(unit, systems=ev.systems, pvalues=True)
        for key in S.TESTS:
            np.testing.assert_array_equal(a[key].statistic, b[key].statistic, err_msg=f"{lab} {key}")
            np.testing.assert_array_equal(a[key].pvalue, b[key].pvalue, err_msg=f"{lab} {key}")
            np.testing.assert_array_equal(a[key].significant, b[key].significant, err_msg=f"{lab} {key}")
        assert phi.min() >= 1 and phi.max() <= K
    f = ev.frame
    got = f[f.measure == "AP@10"].pivot(index="topic", columns="system", values="interval")
    want = ev.interval("AP").map(float)
    assert np.array_equal(got.loc[want.index, list(want.columns)].to_numpy(), want.to_numpy())


@pytest.mark.data
def test_means_view_and_labels(cranfield):
    rundir, qrels = cranfield
    ev = evaluate(qrels, rundir, ["nDCG@10", "RBP(p=0.8)", "AP"], ranked=True)
    assert list(ev.measures) == ["nDCG@10", "RBP_p08@10", "AP@10"]  # a name keeps its label, with its N (issue 48)
    assert ev.given == {"nDCG@10": "nDCG@10", "RBP_p08": "RBP_p08@10", "AP": "AP@10"}
    m = ev.means()
    assert list(m.columns) == ["nDCG@10", "nDCG@10 (interval)", "RBP_p08@10", "RBP_p08@10 (interval)", "AP@10",
                               "AP@10 (interval)"]
    assert np.allclose(m["AP@10"], ev.values("AP").mean(axis=0))  # the name as given finds its column
    assert m.filter(like="(interval)").apply(lambda c: c.between(0, 1).all()).all()


@pytest.mark.data
def test_every_input_form_gives_the_same_values(cranfield):
    rundir, qrels = cranfield
    files = sorted(rundir.iterdir())[:3]
    want = evaluate(qrels, files, "AP,RR,nDCG@10", depth=20)
    frames = [read_run(f) for f in files]
    long = pd.concat([f.assign(run=f.attrs["system"]) for f in frames]).rename(
        columns={"topic": "query_id", "docno": "doc_id"})
    q = read_qrels(qrels)
    qdict: dict = {}
    for t, doc, g in q[["topic", "docno", "rel"]].itertuples(index=False):
        qdict.setdefault(t, {})[doc] = int(g)
    rdict = {f.attrs["system"]: {t: dict(zip(g.docno, g.score)) for t, g in f.groupby("topic", sort=False)}
             for f in frames}
    for qr, rn in ((qrels, long), (qdict, rdict), (q.rename(columns={"topic": "query_id", "docno": "doc_id",
                                                                     "rel": "relevance"}), files)):
        got = evaluate(qr, rn, "AP,RR,nDCG@10", depth=20)
        assert got.systems == want.systems and got.topics == want.topics
        for lab in want.measures:
            assert np.array_equal(got.values(lab).to_numpy(), want.values(lab).to_numpy()), lab


@pytest.mark.data
def test_a_measure_without_an_interval_version_is_an_error_with_ranked(cranfield):
    """Issue 36: with ranked=True every measure gets its interval version or evaluate raises, naming them all;
    without ranked their plain values are there, and asking the interval version says how to get it."""
    rundir, qrels = cranfield
    with pytest.raises(NoIntervalScaleError, match="F1@10, ERR@10 have no interval-scaled version.*ranked=False") as e:
        evaluate(qrels, rundir, "F1,AP,ERR", ranked=True)
    assert isinstance(e.value, ValueError) and e.value.none == ["F1@10", "ERR@10"] and not e.value.missing
    ev = evaluate(qrels, rundir, "F1,AP", depth=10)
    assert ev.values("F1").shape == (len(ev.topics), len(ev.systems))
    with pytest.raises(ValueError, match=r"F1@10 has no interval-scaled values here \(evaluate\(\.\.\., ranked=True\)\)"):
        ev.interval("F1")


@pytest.mark.data
def test_too_deep_for_a_scale_is_an_error_naming_each_deepest_depth(cranfield):
    rundir, qrels = cranfield
    with pytest.raises(NoIntervalScaleError) as e:
        evaluate(qrels, rundir, "AP,nDCG_b02,RR", depth=100, ranked=True)
    reach = {lab: n for lab, _, n in e.value.missing}
    assert reach == {"AP@100": 40}  # RR's φ is closed form at any depth, nDCG_b02's bracketed (issue 42)
    msg = str(e.value)
    assert "ties='min' or 'max' or 'mid' counted to N = 40" in msg and "use depth 40 or less" in msg
    assert "SP·lcm(1..N)" in msg  # why AP's scale stops at N = 40
    assert "no deterministic bracket of the distinct values" in msg  # why no bracket takes its place
    depth = reach_within(M.AP(), 1, "mid", 0.01)[0]  # AP mid within 1 % in the bracket's budget (issue 51)
    assert f"ties='mid' or 'min' or 'max' bracketed within the target to N = {depth}" in msg


@pytest.mark.data
@pytest.mark.parametrize("kw, msg", [
    (dict(depth=0), "depth must be a positive integer"), (dict(ties="median"), "ties must be"),
    (dict(measures="AP,AP"), "given more than once"), (dict(on_no_relevant="drop"), "on_no_relevant"),
    (dict(colour="red"), "unknown reading option"),
])
def test_bad_calls_say_what_is_wrong(cranfield, kw, msg):
    rundir, qrels = cranfield
    kw = {"measures": "AP", **kw}
    with pytest.raises((ValueError, TypeError), match=msg):
        evaluate(qrels, rundir, **kw)


@pytest.mark.data
def test_an_over_budget_build_is_refused_with_the_cheaper_options(cranfield, tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path))
    rundir, qrels = cranfield
    with pytest.raises(ValueError, match=r"AP at N=30.*ties='min'.*pass build=True"):
        evaluate(qrels, rundir, "AP", depth=30, ranked=True)
    ev = evaluate(qrels, rundir, "AP", depth=30, ranked=True, ties="mid")  # counted: nothing built
    assert ev.scales["AP@30"].kind == "count" and not any(tmp_path.rglob("*.npy"))


def test_scoring_leaves_the_statistics_layer_unloaded(tmp_path):
    """`irscales scores` and `evaluate` without a comparison must not import scipy.stats or statsmodels
    (1.5 s and 60 MB on every call, measured in docs/benchmarks.md); `compare` loads them when asked."""
    import subprocess
    import sys

    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 d 1 1.0 t\n2 Q0 c 2 0.5 t\n")
    heavy = "[m for m in ('scipy.stats', 'statsmodels') if m in sys.modules]"
    code = (f"import sys\nfrom irscales.cli import main\n"
            f"try:\n    main(['scores', {str(tmp_path / 'r')!r}, '--qrels', {str(tmp_path / 'q')!r}, '--depth', '10',"
            f" '--format', 'tsv'])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            f"print('after scores', {heavy})\n"
            f"from irscales import evaluate\nev = evaluate({str(tmp_path / 'q')!r}, [{str(tmp_path / 'r')!r}], 'AP', depth=10)\n"
            f"print('after evaluate', {heavy})\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "IRSCALES_CACHE": str(tmp_path / "cache")}).stdout
    assert "after scores []" in out and "after evaluate []" in out, out


def test_judged_at_n_counts_documents_in_the_qrels_over_the_ranks_a_run_has():
    """judged@N (irscales.data._judged, ir_measures' Judged@N): of a run's first min(N, L) documents, those in the
    topic's qrels (grade 0 too), over min(N, L): ranks a short run does not have do not count; per system the
    mean over topics."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    runs = {"A": {"1": {"a": 3.0, "x": 2.0, "b": 1.0}, "2": {"c": 1.0}},  # 2/3 and 1/1
            "B": {"1": {"x": 2.0, "y": 1.0}, "2": {"z": 2.0, "c": 1.0}}}  # 0/2 and 1/2
    with pytest.warns(UserWarning, match=r"judged@3: 1 of 2 systems have fewer than 60% of their top 3 documents "
                                         r"judged \(B 0\.250\)"):
        ev = evaluate(qrels, runs, "P@3", depth=3, judged_threshold=0.6)
    assert ev.judged().to_dict() == pytest.approx({"A": 5 / 6, "B": 1 / 4})
    assert ev.judged(per_topic=True).loc["1"].to_dict() == pytest.approx({"A": 2 / 3, "B": 0})
    assert any(n.startswith("judged@3: 1 of 2") for n in ev.notes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        evaluate(qrels, runs, "P@3", depth=3, judged_threshold=0)  # 0: never warns
    with pytest.raises(ValueError, match=r"judged_threshold must be a number in \[0, 1\], got 1.5"):
        evaluate(qrels, runs, "P@3", depth=3, judged_threshold=1.5)


def test_judged_warning_names_at_most_five_systems():
    from irscales.data._judged import judged_warning

    per = pd.Series({f"s{i}": i / 10 for i in range(8)})
    w = judged_warning(per, 30, 0.9)
    assert w.startswith("judged@30: 8 of 8 systems") and "s0 0.000, s1 0.100" in w and "and 3 more" in w
    assert "s5" not in w and judged_warning(per, 30, 0.0) == ""


@pytest.mark.data
@pytest.mark.skipif(not (paths.shared_dir() and (paths.shared_dir() / "clef" / "eHealth2018-CHS" / "runs").is_dir()),
                    reason="CLEF eHealth 2018 is not in the shared folder (IRSCALES_SHARED)")
def test_clef_2018_at_depth_30_warns_about_five_of_24_systems():
    """A depth-10 pool read at depth 30: 5 of the 24 runs have fewer than 90% of their top 30 judged."""
    from irscales.data.run_repeats import without_repeats
    from irscales.data.trec import find_runs

    d = paths.shared_dir() / "clef" / "eHealth2018-CHS"
    files, _ = without_repeats(find_runs(d / "runs"))
    with pytest.warns(UserWarning, match=r"judged@30: 5 of 24 systems have fewer than 90%"):
        ev = evaluate(d / "CLEF2018_qrel_20180914.txt.gz", files, "P", depth=30, on_uneven_topics="pad")
    j = ev.judged()
    assert (j < 0.9).sum() == 5 and j.idxmin() == "baselines__elastic_BM25f_qe.out"


def test_scale_table_says_what_the_interval_value_is_over_and_where_it_is_an_affine_image(tmp_path):
    """Issue 36 item 3: the scale is over all runs of length N, the same for every topic (the recall base
    does not enter); P at its own N and RBP with p = 1/2 are affine images of the measure (checked on the
    values), R is not (its interval value is P at N: R × RB/N, a factor that changes with the topic)."""
    from fractions import Fraction

    from irscales.data import load_preset

    col = load_preset("sim-t08", depth=30, seed=1).subset(systems=[0, 1, 2], topics=list(range(8)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # judged@N of the simulated pool
        rundir, qrels = col.to_trec(tmp_path)
        ev = evaluate(qrels, rundir, "AP,P@5,P,R,RBP_p05,RBP_p08,nDCG_b02", depth=10, ranked=True)
    t = ev.scale_table().set_index("measure")
    assert t.loc["AP@10", "scale_over"] == ("all 2^10 binary runs of length 10 ranked by SP = AP x RB; recall base "
                                            "not used")
    assert "ideal ranking not used" in t.loc["nDCG_b02@10", "scale_over"]
    assert {m for m in t.index if t.loc[m, "affine"]} == {"P@5", "P@10", "RBP_p05@10"}
    assert t.loc["P@5", "affine"] == "= P@5: P is already an interval scale at this N"
    assert (t["bracket"] == "").all()  # exact values: no bracket to state
    assert t["exact"].all() and (t["max_rel_error"] == 0).all()  # every route here computes φ exactly
    def exact(lab):  # the float scores as the fractions they round (denominators at most 2^10 · RB here)
        return ev.values(lab).map(lambda v: Fraction(v).limit_denominator(2**16)).to_numpy()

    for lab in ("P@5", "P"):  # the interval value is the measure itself
        assert (ev.interval(lab).to_numpy() == exact(lab)).all()
    assert (ev.interval("RBP_p05").to_numpy() == exact("RBP_p05") * Fraction(2**10, 2**10 - 1)).all()
    r, p = ev.interval("R").to_numpy(), ev.interval("P").to_numpy()
    assert (r == p).all() and not (r == exact("R")).all()
    assert "no copy of R" in t.loc["R@10", "scale_over"] and not t.loc["R@10", "affine"]


@pytest.mark.data
def test_clef_2018_at_depth_30_prints_a_judged_warning_on_the_command_line():
    """A depth-10 pool read at depth 30 (CLEF eHealth 2018, its repeated lines dropped first): one warning line
    on stderr naming the 5 of 24 systems below 90% judged."""
    from click.testing import CliRunner

    from irscales.data.run_repeats import without_repeats
    from irscales.data.trec import find_runs

    shared = paths.shared_dir()
    d = shared / "clef" / "eHealth2018-CHS" if shared is not None else None
    if d is None or not (d / "runs").is_dir():
        pytest.skip("CLEF eHealth 2018 is not in the shared folder (IRSCALES_SHARED)")
    files, _ = without_repeats(find_runs(d / "runs"))
    r = CliRunner().invoke(main, ["scores", *map(str, files), "--qrels", str(d / "CLEF2018_qrel_20180914.txt.gz"),
                                  "--depth", "30", "--measures", "P", "--means-only", "--on-uneven-topics", "pad"])
    assert r.exit_code == 0, r.output
    warned = [ln for ln in r.stderr.splitlines() if ln.startswith("irscales: warning: judged@30:")]
    assert len(warned) == 1 and "5 of 24 systems have fewer than 90%" in warned[0]
    assert "baselines__elastic_BM25f_qe.out 0.825" in warned[0]


@pytest.mark.data
def test_ranx_column_names_read_as_ir_measures_ones(cranfield):
    """ranx's frames (``Run.from_df`` / ``Qrels.from_df`` defaults: ``q_id, doc_id, score``, a grade being a
    score) give the values of the ``query_id`` route (issue 36)."""
    rundir, qrels = cranfield
    files = sorted(rundir.iterdir())[:3]
    frames = [read_run(f) for f in files]
    long = pd.concat([f.assign(run=f.attrs["system"]) for f in frames])
    q = read_qrels(qrels)
    want = evaluate(q.rename(columns={"topic": "query_id", "docno": "doc_id", "rel": "relevance"}),
                    long.rename(columns={"topic": "query_id", "docno": "doc_id"}), "AP,RR,nDCG@10", depth=20)
    got = evaluate(q.rename(columns={"topic": "q_id", "docno": "doc_id", "rel": "score"}),
                   long.rename(columns={"topic": "q_id", "docno": "doc_id"}), "AP,RR,nDCG@10", depth=20)
    assert got.systems == want.systems and got.topics == want.topics
    for lab in want.measures:
        assert np.array_equal(got.values(lab).to_numpy(), want.values(lab).to_numpy()), lab


def _graded_files(tmp_path, top: int = 3):
    """Three runs of 8 documents on 5 topics, distinct scores, grades 0..top."""
    rng = np.random.default_rng(36)
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{t} 0 d{d} {int(rng.integers(0, top + 1)) if d else top}\n"
                         for t in range(1, 6) for d in range(12)))
    runs = tmp_path / "runs"
    runs.mkdir()
    for s in range(3):
        (runs / f"r{s}").write_text("".join(f"{t} Q0 d{d} {i + 1} {8 - i + t / 10} r{s}\n" for t in range(1, 6)
                                            for i, d in enumerate(rng.permutation(12)[:8])))
    return q, runs


def test_err_takes_the_qrels_grades(tmp_path):
    """``ERR`` (and ``ERR@k``) named without max_grade takes the qrels' largest grade; an explicit max_grade is
    kept, and one below the qrels' grades is refused with the constructor to use."""
    from irscales.measures import ERR, Cut

    q, runs = _graded_files(tmp_path)
    ev = evaluate(q, runs, "ERR,ERR@5,ERR(max_grade=3),ERR(max_grade=5)")
    assert list(ev.measures) == ["ERR@8", "ERR@5", "ERR(max_grade=3)@8", "ERR(max_grade=5)@8"]  # N: the runs' 8
    assert ev.measures["ERR@8"] == ERR(max_grade=3) and ev.measures["ERR@5"] == Cut(ERR(max_grade=3), 5)
    assert ev.measures[ev.given["ERR(max_grade=5)"]] == ERR(max_grade=5)
    assert np.array_equal(ev.values("ERR").to_numpy(), ev.values("ERR(max_grade=3)").to_numpy())
    assert not np.allclose(ev.values("ERR").to_numpy(), ev.values("ERR(max_grade=5)").to_numpy())
    with pytest.raises(ValueError, match=r"ERR\(max_grade=3\)"):
        evaluate(q, runs, "ERR(max_grade=2)")
    binary = tmp_path / "binary.txt"
    binary.write_text("".join(line.rsplit(" ", 1)[0] + f" {min(int(line.rsplit(' ', 1)[1]), 1)}\n"
                              for line in q.read_text().splitlines()))
    assert evaluate(binary, runs, "ERR").measures["ERR@8"] == ERR(max_grade=1)


def test_err_with_gdevals_normalisation_matches_ir_measures(tmp_path):
    """ir_measures' ERR@k is gdeval's, whose R_i divides by 2^4 whatever the qrels: ERR(max_grade=4)@k here."""
    ir_measures = pytest.importorskip("ir_measures")
    import shutil

    if shutil.which("perl") is None:
        pytest.skip("gdeval (ir_measures' ERR) needs perl")
    q, runs = _graded_files(tmp_path)
    ev = evaluate(q, runs, "ERR(max_grade=4)@5")
    qrels = list(ir_measures.read_trec_qrels(str(q)))
    for s, f in zip(ev.systems, sorted(runs.iterdir())):
        got = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.ERR @ 5], qrels,
                                                                  list(ir_measures.read_trec_run(str(f))))}
        mine = ev.values("ERR(max_grade=4)@5")[s]
        assert sorted(got) == sorted(mine.index)
        assert np.allclose([got[t] for t in mine.index], mine.to_numpy(), atol=5e-6), s  # gdeval prints 5 decimals


def test_interval_values_give_the_plan_phi_and_the_bracket_of_one_measure():
    rng = np.random.default_rng(5)
    qrels = pd.DataFrame([{"topic": f"t{t}", "docno": f"d{i}", "rel": int(rng.random() < 0.4) + (i == 0)}
                          for t in range(4) for i in range(12)])
    runs = pd.DataFrame([{"system": f"s{s}", "topic": f"t{t}", "docno": f"d{d}", "score": 12.0 - r}
                         for s in range(3) for t in range(4) for r, d in enumerate(rng.permutation(12))])
    ev = evaluate(qrels, runs, "RBP_p08,P", depth=12, ranked=True)
    iv = ev.interval_values("RBP_p08")
    assert iv.plan.exact and (iv.phi_lo == iv.phi).all() and (iv.phi_hi == iv.phi).all()
    assert (ev.interval("RBP_p08").to_numpy() == iv.unit).all()
    with pytest.raises(ValueError, match="no interval-scaled"):
        evaluate(qrels, runs, "P", depth=12).interval_values("P")
