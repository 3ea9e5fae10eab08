"""The command line on TREC files generated in code: every subcommand, bad input (the README's commands run in
tests/test_readme.py)."""

from __future__ import annotations

import re
from fractions import Fraction
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from irscales import measures as M
from irscales.cli import main
from irscales.data import load_preset


@pytest.fixture(scope="module")
def trec(tmp_path_factory):
    d = tmp_path_factory.mktemp("trec")
    col = load_preset("sim-t08", depth=30, seed=3).subset(systems=[0, 1, 2, 3], topics=list(range(12)))
    rundir, qrels = col.to_trec(d)
    return d, rundir, qrels, col


def run(args, cwd=None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _label(f: pd.DataFrame, name: str, names=()) -> str:
    """The column of measure ``name`` in a command's output: the name, or the name with its N (issue 48); ``names``:
    the others given, whose columns it is not."""
    labels = set(f["measure"])
    if name in labels:
        return name
    found = [x for x in labels - set(names) if re.fullmatch(re.escape(name) + r"@\d+", x)]
    assert len(found) == 1, (name, found)
    return found[0]


def test_help_on_every_subcommand():
    for sub in ["scores", "compare", "scale", "correlate", "ipso"]:
        r = run([sub, "--help"])
        assert r.exit_code == 0 and "Usage" in r.output


def test_scores_matches_library(trec):
    d, rundir, qrels, col = trec
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "10", "--measures", "AP,RBP_p05", "--format", "csv",
             "--ranked", "--phi"])
    assert r.exit_code == 0, r.output
    from io import StringIO

    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    assert set(f["measure"]) == {"AP@10", "RBP_p05@10"}  # each name carries its N (issue 48)
    per = f[(f.measure == "AP@10") & (f.topic != "all")]
    ap = col.evaluate(M.AP(), 10)
    got = per.pivot(index="system", columns="topic", values="value").loc[list(col.systems), list(col.topics)]
    assert np.allclose(got.to_numpy(), ap.T, atol=1e-9)
    # RBP p=1/2 is its own interval scale: φ = 2^N·m + 1 (ranks start at 1 for the empty run)
    rb = f[(f.measure == "RBP_p05@10") & (f.topic != "all")]
    assert np.allclose(rb["phi"], rb["value"] * 2**10 + 1)


def test_compare_and_ipso(trec):
    d, rundir, qrels, col = trec
    a, b = sorted(Path(rundir).iterdir())[:2]
    r = run(["compare", a, b, "--qrels", qrels, "--depth", "10", "--measure", "RBP_p05"])
    assert r.exit_code == 0, r.output
    assert "Sign Test" in r.output and "IPSO" in r.output
    r = run(["compare", a, b, "--qrels", qrels, "--depth", "10", "--measure", "RBP_p05", "--format", "csv"])
    from io import StringIO

    f = pd.read_csv(StringIO(r.stdout))
    assert not f["changed"].any()  # RBP p=1/2 is an interval scale: no verdict may change
    r = run(["ipso", a, b, qrels, "--depth", "10", "--metric", "P@10", "--test", "sign"])
    assert r.exit_code == 0 and "report: " in r.output


def test_scale_and_correlate(trec):
    d, rundir, qrels, col = trec
    r = run(["scale", "--measure", "DCG_b02", "--depth", "5", "--no-cache"])
    assert r.exit_code == 0, r.output
    assert re.search(r"distinct\s+\d+ values", r.output)
    r = run(["correlate", rundir, "--qrels", qrels, "--depth", "5", "--measures", "P,RBP_p05,AP", "--format", "csv"])
    assert r.exit_code == 0, r.output
    from io import StringIO

    f = pd.read_csv(StringIO(r.stdout))
    assert len(f) == 3 and f["tau"].between(-1, 1).all()


@pytest.mark.parametrize("content, msg", [
    ("1 Q0 d1 x 1 run\n", "rank"),
    ("1 Q0 d1 1\n", "column"),
    ("", "empty"),
])
def test_bad_runs_give_one_line(trec, tmp_path, content, msg):
    d, rundir, qrels, col = trec
    bad = tmp_path / "bad.run"
    bad.write_text(content)
    r = CliRunner().invoke(main, ["scores", str(bad), "--qrels", str(qrels)])
    assert r.exit_code == 1
    line = r.output.strip()
    assert line.startswith("irscales: error:") and "\n" not in line and msg in line and "Traceback" not in line


def test_bad_measure_and_bad_depth(trec):
    d, rundir, qrels, col = trec
    r = CliRunner().invoke(main, ["scores", str(rundir), "--qrels", str(qrels), "--measures", "FOO"])
    assert r.exit_code == 2 and "unknown measure 'FOO'" in r.output  # a usage error (issue 37 item 7)
    r = CliRunner().invoke(main, ["scale", "--measure", "AP", "--depth", "0"])
    assert r.exit_code == 2
    assert r.stderr.strip().splitlines() == [
        "irscales: error: Invalid value for '--depth': 0 is not in the range x>=1. (see irscales scale --help)"]
    r = CliRunner().invoke(main, ["scores", str(rundir), "--qrels", str(qrels), "--on-no-relevant", "drop"])
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1 and "'keep'" in r.stderr
    r = CliRunner().invoke(main, ["nonsense"])
    assert r.exit_code == 2 and r.stderr.startswith("irscales: error: No such command 'nonsense'")


# ----------------------------------------------------------- issue 18: a command line a user can trust


def one_line_error(r, *needles):
    """Exit code 1, one error line on stderr ('irscales: error: …', the last line; any others are
    one-line notes or warnings), no traceback."""
    assert r.exit_code == 1, r.output
    lines = r.stderr.strip().splitlines()
    err = lines[-1]
    assert err.startswith("irscales: error:"), r.stderr
    assert all(ln.startswith(("irscales: note:", "irscales: warning:")) for ln in lines[:-1]), r.stderr
    assert "Traceback" not in r.output and r.stdout == ""
    for n in needles:
        assert n in err, (n, err)
    return err


@pytest.fixture
def small(tmp_path):
    """The issue's 5-line run with a 4-line qrels."""
    run_ = tmp_path / "a.run"
    run_.write_text("1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d3 3 1.0 r\n2 Q0 d1 1 1.0 r\n2 Q0 d4 2 0.5 r\n")
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n1 0 d3 2\n2 0 d4 1\n2 0 d9 1\n")
    return run_, q


def test_defaults_answer_without_building_scales(small, tmp_path, monkeypatch):
    """`irscales scores a.run --qrels q.txt` took 6 minutes and 11 GB (ranked versions at N = 30):
    defaults now give plain scores over the whole run and write no cache."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("IRSCALES_CACHE", str(cache))
    run_, q = small
    r = run(["scores", run_, "--qrels", q, "--format", "csv"])
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    assert list(f.columns) == ["system", "topic", "measure", "value"]
    ap = f[(f.measure == "AP@3")].set_index("topic")["value"]  # every document of the longest run: 3
    assert ap["1"] == pytest.approx(5 / 6) and ap["2"] == pytest.approx(1 / 4)
    assert not cache.exists() or not any(cache.rglob("*.npy"))


def test_expensive_scale_build_is_announced_and_needs_a_flag(small, tmp_path, monkeypatch):
    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "cache"))
    run_, q = small
    r = run(["scores", run_, "--qrels", q, "--ranked", "--phi", "--depth", "30"])
    err = one_line_error(r, "--build-scales", "1,073,741,824 runs", "GB", str(tmp_path / "cache" / "scales"))
    assert "AP at N=30" in err and "nDCG_b02" not in err  # nDCG_b02 is counted (irscales.enumeration.counting)
    assert not any((tmp_path / "cache").rglob("*.npy"))
    # a cheap build goes ahead, says what it builds on stderr (not a terminal here), with a progress bar
    r = run(["scale", "--measure", "DCG_b02", "--depth", "8"])
    assert r.exit_code == 0 and "building the scale of DCG_b02 at N=8" in r.stderr
    assert "DCG_b02 N=8" in r.stderr  # the tqdm bar's label
    r = run(["scale", "--measure", "DCG_b02", "--depth", "8"])
    assert "building" not in r.stderr  # cached now


@pytest.mark.parametrize("name", ["P@0", "DCG_b00", "DCG(base=-2)", "DCG_b01", "nDCG_b1", "RBP(p=1.5)", "FOO"])
@pytest.mark.parametrize("sub", ["scores", "compare", "scale", "correlate", "ipso"])
def test_invalid_measures_give_one_line(trec, sub, name):
    d, rundir, qrels, col = trec
    a, b = sorted(Path(rundir).iterdir())[:2]
    args = {"scores": ["scores", rundir, "--qrels", qrels, "--measures", name],
            "correlate": ["correlate", rundir, "--qrels", qrels, "--measures", name],
            "compare": ["compare", a, b, "--qrels", qrels, "--measure", name],
            "ipso": ["ipso", a, b, qrels, "--metric", name],
            "scale": ["scale", "--measure", name, "--depth", "5"]}[sub]
    allowed = {"P@0": "k >= 1", "RBP(p=1.5)": "0 < p < 1", "FOO": "unknown measure"}.get(name, "log base b > 1")
    r = run(args)  # a bad measure name is a usage error (issue 37 item 7): exit 2, before any work
    assert r.exit_code == 2 and r.stdout == "", r.output
    line = r.stderr.strip()
    assert "\n" not in line and line.startswith("irscales: error: Invalid value for '--measures'")
    assert allowed in line and line.endswith(f"(see irscales {sub} --help)")


def test_measures_without_a_scale(trec):
    """F1, Rprec, ERR: plain values always; asking their interval version is one error naming them, in every
    command that computes interval values (never exit 0 with a column missing)."""
    d, rundir, qrels, col = trec
    a, b = sorted(Path(rundir).iterdir())[:2]
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "10", "--measures", "F1,ERR(),AP", "--format", "csv"])
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    got = f[(f.measure == "F1@10") & (f.topic != "all")].pivot(index="system", columns="topic", values="value")
    assert np.allclose(got.loc[list(col.systems), list(col.topics)], col.evaluate(M.F1(), 10).T)
    err = one_line_error(run(["scores", rundir, "--qrels", qrels, "--depth", "10", "--measures", "F1,ERR(),AP",
                              "--ranked", "--phi", "--format", "csv"]),
                         "F1@10, ERR@10 have no interval-scaled version", "drop them or leave out --ranked")
    assert "AP" not in err.split("version")[0]
    for args in (["report", rundir], ["correlate", rundir], ["compare", a, b]):
        err = one_line_error(run([*args, "--qrels", qrels, "--depth", "10", "--measures", "AP,F1"]),
                             "F1@10 has no interval-scaled version", "drop it")
        assert "--ranked" not in err  # these commands always compute interval values
    one_line_error(run(["compare", a, b, "--qrels", qrels, "--depth", "30", "--measure", "Rprec"]),
                   "Rprec@30 has no interval-scaled version")
    one_line_error(run(["scale", "--measure", "ERR", "--depth", "5"]), "no enumeration kernel for ERR")
    one_line_error(run(["scale", "--measure", "F1", "--depth", "5"]), "no enumeration kernel for F1")


def test_graded_measures_on_binary_qrels_are_ranked_over_binary_runs(trec):
    """With two grades the graded runs are the binary runs: gnDCG_b02's ranked version is nDCG_b02's φ."""
    d, rundir, qrels, col = trec
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "5", "--ranked", "--phi", "--format", "csv",
             "--measures", "NDCG(base=2, gains='graded'),nDCG_b02,NDCG(discount='log2p1', gains='graded')"])
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    assert set(f.measure) == {"gnDCG_b02@5", "nDCG_b02@5", "gnDCG_log2p1@5"}
    assert np.array_equal(f[f.measure == "gnDCG_b02@5"]["phi"].to_numpy(),
                          f[f.measure == "nDCG_b02@5"]["phi"].to_numpy())
    assert f[f.measure == "gnDCG_log2p1@5"]["phi"].notna().all()


@pytest.fixture(scope="module")
def graded_trec(tmp_path_factory):
    d = tmp_path_factory.mktemp("graded")
    col = load_preset("sim-t26", depth=30, seed=5).subset(systems=[0, 1, 2], topics=list(range(6)))
    rundir, qrels = col.to_trec(d)
    return d, rundir, qrels, col


def test_graded_measures_on_graded_qrels_are_ranked_over_graded_runs(graded_trec, tmp_path, monkeypatch):
    """Qrels with grades 0..2: gRBP_p08's ranked version is φ over all 3^N graded runs (counted, no
    scale), gnDCG_b02's from the enumerated graded scale, both equal to the library's; compare takes a
    graded measure too."""
    from irscales import enumeration as E
    from irscales.enumeration import counting

    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "cache"))
    d, rundir, qrels, col = graded_trec
    assert col.max_grade == 2
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "8", "--ranked", "--phi", "--format", "csv",
             "--measures", "GRBP(p=0.8, max_gain=2),NDCG(base=2, gains='graded')"])
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    f = f[f.topic != "all"]
    rel = col.rel_at(8)
    for key, want in (("GRBP(p=0.8, max_gain=2)@8", counting.phi_runs(M.GRBP(p=0.8, max_gain=2), rel, c=2)),
                      ("gnDCG_b02@8", E.scale(M.DCG(base=2, gains="graded"), 8, c=2, cache=False).phi_runs(rel))):
        got = f[f.measure == key].pivot(index="system", columns="topic", values="phi")
        assert np.array_equal(got.loc[list(col.systems), list(col.topics)].to_numpy(), np.asarray(want, float)), key
    assert f[f.measure == "GRBP(p=0.8, max_gain=2)@8"]["phi"].max() > 2**8  # beyond the binary scale: graded runs
    a, b = sorted(Path(rundir).iterdir())[:2]
    r = run(["compare", a, b, "--qrels", qrels, "--depth", "8", "--measure", "GRBP(p=0.8, max_gain=2)"])
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("measure, depth, reason, deepest", [
    ("AP", 41, "SP·lcm(1..N)", "deepest N = 40"), ("AP", 64, "SP·lcm(1..N)", "deepest N = 40"),
    ("DCG_b02", 1021, "at most N=40", "deepest N = 54"),  # bracketed beyond 54, to N = 1020 (issues 42, 51)
])
def test_depth_limits_are_refused_up_front_with_the_reason(trec, measure, depth, reason, deepest):
    """--depth 41–64 used to fail deep inside (AP: overflow; RR at 62: a 496 GiB allocation; RR at
    64: OverflowError)."""
    d, rundir, qrels, col = trec
    a, b = sorted(Path(rundir).iterdir())[:2]
    one_line_error(run(["scale", "--measure", measure, "--depth", depth]), reason, f"N={depth}")
    one_line_error(run(["compare", a, b, "--qrels", qrels, "--depth", depth, "--measure", measure]), deepest)
    one_line_error(run(["scores", rundir, "--qrels", qrels, "--depth", depth, "--measures", measure, "--ranked",
                        "--phi"]), deepest, f"for {measure}@{depth} (")


def test_counted_measures_are_ranked_at_any_depth_without_a_scale(trec, tmp_path, monkeypatch):
    """Issue 20: RBP_p08 at depth 50 and RR at depth 64 were refused (scales stop at N = 40); their φ
    is now counted (irscales.enumeration.counting), equal to counting.phi_runs, and nothing is written to the cache.
    The scale command describes the counted scale as irscales.enumeration.scale does (issue 37 item 8)."""
    from irscales.enumeration import counting

    cache = tmp_path / "cache"
    monkeypatch.setenv("IRSCALES_CACHE", str(cache))
    d, rundir, qrels, col = trec
    a, b = sorted(Path(rundir).iterdir())[:2]
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "50", "--measures", "RBP_p08,RR", "--ranked", "--phi",
             "--format", "csv"])
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    got = f[(f.measure == "RBP_p08@50") & (f.topic != "all")].pivot(index="system", columns="topic", values="phi")
    rel = np.pad(col.binary(30), [(0, 0), (0, 0), (0, 20)])  # runs hold ≤ 30 documents: padded
    want = counting.phi_runs(M.RBP(p=0.8), rel).astype(float)
    assert np.array_equal(got.loc[list(col.systems), list(col.topics)].to_numpy(), want)
    assert ((want >= 1) & (want <= 2**50)).all() and len(np.unique(want)) > 1
    rr = f[(f.measure == "RR@50") & (f.topic != "all")]
    assert np.allclose(rr["phi"], np.where(rr["value"] > 0, 52 - 1 / rr["value"].where(rr["value"] > 0, 1), 1))
    assert not cache.exists() or not any(cache.rglob("*.npy"))
    r = run(["compare", a, b, "--qrels", qrels, "--depth", "64", "--measure", "RR"])
    assert r.exit_code == 0, r.output
    r = run(["scale", "--measure", "RR", "--depth", "64"])
    assert r.exit_code == 0 and "65 values" in r.stdout and "count (phi counted, nothing stored" in r.stdout


def test_ordinary_values_at_any_depth_match_trec_eval(tmp_path):
    """AP, RR, nDCG, P_k, … at depth 1000 on runs of up to 300 documents with uneven topics,
    topics without relevant documents, negative grades and run topics absent from the qrels:
    the trec_eval options reproduce pytrec_eval's per-topic values and means."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(18)
    qrels, runs = {}, {"sysA": {}, "sysB": {}}
    for t in range(1, 13):
        grades = rng.integers(-1, 4, size=80) * (rng.random(80) < 0.4)
        if t == 3:
            grades[:] = np.minimum(grades, 0)  # judged, but nothing relevant
        qrels[str(t)] = {f"d{i}": int(g) for i, g in enumerate(grades) if rng.random() < 0.9}
        for s in runs:
            if s == "sysB" and t == 5:
                continue  # uneven topics: sysB has no run for topic 5
            n = int(rng.integers(1, 300))
            docs = rng.choice(400, size=n, replace=False)
            runs[s][str(t)] = {f"d{d}": float(n - i) for i, d in enumerate(docs)}
    runs["sysA"]["99"] = {"d1": 1.0}  # a run topic with no judgments (trec_eval ignores it)
    rundir = tmp_path / "runs"
    rundir.mkdir()
    for s, per in runs.items():
        lines = [f"{t} Q0 {d} {i + 1} {sc} {s}" for t, docs in per.items()
                 for i, (d, sc) in enumerate(sorted(docs.items(), key=lambda kv: -kv[1]))]
        (rundir / s).write_text("\n".join(lines) + "\n")
    qf = tmp_path / "qrels.txt"
    qf.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items()))
    names = ["map", "recip_rank", "ndcg", "Rprec", "P_10", "map_cut_100", "ndcg_cut_10", "recall_20", "AP@10",
             "nDCG@20", "RR", "AP"]
    trec_keys = {"map": "map", "recip_rank": "recip_rank", "ndcg": "ndcg", "Rprec": "Rprec", "P_10": "P_10",
                 "map_cut_100": "map_cut_100", "ndcg_cut_10": "ndcg_cut_10", "recall_20": "recall_20",
                 "AP@10": "map_cut_10", "nDCG@20": "ndcg_cut_20", "RR": "recip_rank", "AP": "map"}
    base = ["scores", rundir, "--qrels", qf, "--measures", ",".join(names), "--format", "csv"]
    one_line_error(run(base), "negative", "qrels.txt")  # the API's defaults: errors, not guesses
    trec = ["--negative", "zero", "--on-missing-topic", "skip", "--on-no-relevant", "keep",
            "--on-uneven-topics", "pad"]
    r = run(base + trec)
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank", "ndcg", "Rprec", "P.10", "map_cut.10,100",
                                                "ndcg_cut.10,20", "recall.20"})
    judged = {t for t, d in qrels.items() if d}
    for s, per in runs.items():
        res = ev.evaluate(per)
        assert "3" in res  # trec_eval reports a topic without relevant documents (every measure 0)
        padded = sorted(judged & set(runs["sysA"]) | judged & set(runs["sysB"]), key=int)  # trec_eval -c
        for name in names:
            key = trec_keys[name]
            mine = f[(f.system == s) & (f.measure == _label(f, name, names))].set_index("topic")["value"]
            want = {t: res[t][key] if t in res else 0.0 for t in padded}
            assert sorted(mine.index.drop("all"), key=int) == padded, name
            assert np.allclose([mine[t] for t in padded], [want[t] for t in padded], atol=1e-12), (s, name)
            assert mine["all"] == pytest.approx(np.mean(list(want.values())), abs=1e-12)
    # topics without relevant documents are dropped by default: means then differ from trec_eval
    r = run(base + trec[:4] + ["--on-uneven-topics", "pad"])
    f2 = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    assert r.exit_code == 0 and "3" not in set(f2.topic) and "3" in set(f.topic)
    assert "irscales: warning: 1 topic(s) have no relevant document (3); skipped" in r.stderr.splitlines()
    # grades go up to 3 here: ERR takes them (R = (2^g - 1)/2^3); an explicit max_grade below 3 is refused
    r = run(base[:4] + ["--measures", "ERR(max_grade=3)", "--format", "csv"] + trec)
    assert r.exit_code == 0 and pd.read_csv(StringIO(r.stdout))["value"].between(0, 1).all()
    bare = run(base[:4] + ["--measures", "ERR", "--format", "csv"] + trec)
    assert bare.exit_code == 0 and bare.stdout == r.stdout.replace("ERR(max_grade=3)@", "ERR@")
    one_line_error(run(base[:4] + ["--measures", "ERR(max_grade=2)"] + trec), "ERR(max_grade=3)")


def test_whole_run_names_and_cut_offs_need_a_deep_enough_run(trec):
    d, rundir, qrels, col = trec
    one_line_error(run(["scores", rundir, "--qrels", qrels, "--depth", "10", "--measures", "map"]),
                   "whole run", "--depth 30")
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "5", "--measures", "P_10", "--format", "csv"])
    assert r.exit_code == 0, r.output  # a cut-off in the name is taken whatever --depth says (issue 48)
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    got = f[(f.measure == "P_10") & (f.topic != "all")].pivot(index="system", columns="topic", values="value")
    assert np.array_equal(got.loc[list(col.systems), list(col.topics)].to_numpy(), col.evaluate(M.P(k=10), 10).T)
    r = run(["scores", rundir, "--qrels", qrels, "--measures", "AP,map,AP"])  # read as evaluate reads it: a usage error
    assert r.exit_code == 2 and r.stderr.strip() == ("irscales: error: Invalid value for '--measures': measure AP is "
                                                     "given more than once (see irscales scores --help)")
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "30", "--measures", "map,AP", "--format", "csv"])
    f = pd.read_csv(StringIO(r.stdout))
    assert r.exit_code == 0
    assert np.array_equal(f[f.measure == "map@30"]["value"].to_numpy(), f[f.measure == "AP@30"]["value"].to_numpy())


def test_unusable_cache_gives_one_line(small, tmp_path, monkeypatch):
    """An IRSCALES_CACHE that cannot be written (a file in the way; a permission error) ends in one
    line naming the path and the way out, not a traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("IRSCALES_CACHE", str(blocker / "cache"))
    one_line_error(run(["scale", "--measure", "DCG_b02", "--depth", "6"]), str(blocker), "IRSCALES_CACHE", "--no-cache")
    r = run(["scale", "--measure", "DCG_b02", "--depth", "6", "--no-cache"])
    assert r.exit_code == 0, r.output

    from irscales.enumeration import _cache as enumeration_cache

    def denied():
        raise PermissionError(13, "Permission denied", str(blocker / "cache"))

    monkeypatch.setattr(enumeration_cache, "cache_dir", denied)
    one_line_error(run(["scale", "--measure", "DCG_b02", "--depth", "6"]), "Permission denied", "IRSCALES_CACHE")


def test_unreadable_run_directory(trec, monkeypatch):
    """The API wraps an unreadable directory into TrecFormatError with the path; the CLI prints it."""
    from irscales.data.collection import Collection
    from irscales.data.trec import TrecFormatError

    d, rundir, qrels, col = trec
    real = Path.iterdir

    def deny(self):
        if self == Path(rundir):
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "iterdir", deny)
    with pytest.raises(TrecFormatError, match=re.escape(f"{rundir}: cannot list this directory: Permission denied")):
        Collection.from_trec(rundir, qrels, depth=5)
    one_line_error(run(["scores", rundir, "--qrels", qrels]), str(rundir), "Permission denied")


def test_unexpected_errors_are_one_line_too(trec, monkeypatch):
    d, rundir, qrels, col = trec
    from irscales import cli

    def boom(*a, **k):
        raise TypeError("something unforeseen")

    monkeypatch.setattr(cli, "_evaluate", boom)
    one_line_error(run(["scores", rundir, "--qrels", qrels]), "internal error (TypeError: something unforeseen)",
                   "IRSCALES_DEBUG=1")
    monkeypatch.setenv("IRSCALES_DEBUG", "1")
    with pytest.raises(TypeError):
        run(["scores", rundir, "--qrels", qrels])


def test_help_documents_synonyms_and_trec_eval_recipe():
    r = run(["scores", "--help"])
    text = " ".join(r.output.split())
    for s in ["map_cut_10", "ndcg_cut_10", "recip_rank", "nDCG@10", "RBP(rel=1,p=0.8)", "--on-no-relevant",
              "--negative", "--on-uneven-topics", "--build-scales", "trec_eval -c", "NOT trec_eval's ndcg"]:
        assert s in text, s


def test_process_exit_code_and_stderr(small, tmp_path):
    """The installed entry point as a process: one stderr line, exit 2 (a bad measure is a usage error),
    nothing on stdout."""
    import os
    import subprocess
    import sys

    run_, q = small
    env = dict(os.environ, IRSCALES_CACHE=str(tmp_path / "c"))
    p = subprocess.run([sys.executable, "-m", "irscales.cli", "scores", str(run_), "--qrels", str(q),
                        "--measures", "P@0"], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.strip().count("\n") == 0 and "k >= 1" in p.stderr


def test_csv_keeps_every_digit(trec):
    """CSV values read back as the very doubles computed (no rounding that merges or splits ties)."""
    d, rundir, qrels, col = trec
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "30", "--measures", "RBP_p08", "--format", "csv"])
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
    got = f[f.topic != "all"].pivot(index="system", columns="topic", values="value")
    assert np.array_equal(got.loc[list(col.systems), list(col.topics)].to_numpy(), col.evaluate(M.RBP(p=0.8), 30).T)


def test_ranked_cut_off_measures_use_the_scale_at_k(trec):
    """φ of AP@5 (P@5) over REL^10 is φ of AP (P) over REL^5 on the top five ranks: a cut measure
    takes the same distinct values."""
    d, rundir, qrels, col = trec
    r10 = run(["scores", rundir, "--qrels", qrels, "--depth", "10", "--measures", "AP@5,P@5", "--ranked", "--phi",
               "--format", "csv"])
    r5 = run(["scores", rundir, "--qrels", qrels, "--depth", "5", "--measures", "AP,P", "--ranked", "--phi", "--format", "csv"])
    assert r10.exit_code == 0 and r5.exit_code == 0, r10.output + r5.output
    f10, f5 = (pd.read_csv(StringIO(r.stdout), dtype={"topic": str}) for r in (r10, r5))
    for cut, plain in (("AP@5", "AP@5"), ("P@5", "P@5")):  # AP at depth 5 is AP@5, and says so
        a, b = f10[f10.measure == cut], f5[f5.measure == plain]
        assert np.array_equal(a["phi"].to_numpy(), b["phi"].to_numpy())
        assert np.allclose(a["value"].to_numpy(), b["value"].to_numpy(), rtol=0, atol=1e-15)
    from irscales.enumeration import scale

    want = scale(M.AP(), 5).phi_runs(col.binary(5))
    got = f10[(f10.measure == "AP@5") & (f10.topic != "all")].pivot(index="system", columns="topic", values="phi")
    assert np.array_equal(got.loc[list(col.systems), list(col.topics)].to_numpy(), want)


def test_ties_option_selects_the_tie_strategy_and_the_counting_it_allows(trec, tmp_path, monkeypatch):
    """--ties: the ranked values are φ with that tie strategy (= the scale's at depth 8); AP at depth 30
    is counted for min (to N = 40) without a scale, while unq (counted to N = 24) needs a scale build."""
    from irscales import enumeration as E
    from irscales.enumeration import counting

    cache = tmp_path / "cache"
    monkeypatch.setenv("IRSCALES_CACHE", str(cache))
    d, rundir, qrels, col = trec

    def ranked(depth, ties, measures="AP"):
        r = run(["scores", rundir, "--qrels", qrels, "--depth", depth, "--measures", measures, "--ranked", "--phi",
                 "--format", "csv", "--ties", ties])
        assert r.exit_code == 0, r.output
        f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str})
        f = f[f.topic != "all"].pivot(index="system", columns="topic", values="phi")
        return f.loc[list(col.systems), list(col.topics)].to_numpy()

    sc = E.scale(M.AP(), 8, cache=False)
    rel8 = col.binary(8)
    assert np.array_equal(ranked(8, "mid"), np.asarray(sc.phi_runs(rel8, "mid"), float))
    assert not np.array_equal(ranked(8, "mid"), ranked(8, "unq"))
    got = ranked(30, "min")
    assert np.array_equal(got, np.asarray(counting.phi_runs(M.AP(), col.binary(30), "min"), float))
    assert not cache.exists() or not any(cache.rglob("*.npy"))
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "30", "--measures", "AP", "--ranked", "--phi"])
    assert r.exit_code != 0 and "--build-scales" in r.output
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "8", "--ranked", "--phi", "--ties", "median"])
    assert r.exit_code != 0 and "median" in r.output


def test_beyond_every_limit_the_error_gives_the_deepest_depth_of_each_measure(trec):
    """Issue 20 asked for `scores --depth 100 --measures RBP_p08,DCG_b02` without a scale: exact φ at N = 100
    is out of reach for both (2^50-entry half tables), so it is bracketed (issue 42), and refused only beyond the
    brackets. Issue 36: one rule for depth — every requested interval value or exit 1 naming each measure's
    deepest N and the cheaper routes, never exit 0 with a column missing."""
    d, rundir, qrels, col = trec
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "100", "--measures", "RBP_p08,DCG_b02", "--ranked",
             "--means-only", "--format", "csv", "--max-rel-error", "0.02"])
    assert r.exit_code == 0, r.output
    assert pd.read_csv(StringIO(r.stdout))["interval"].notna().all()
    err = one_line_error(run(["scores", rundir, "--qrels", qrels, "--depth", "5000", "--measures", "RBP_p08,DCG_b02",
                              "--ranked", "--phi", "--means-only"]),
                         "no interval-scaled values for RBP_p08@5000 (deepest N = 52, counted:",
                         "bracketed to N = 2983, not further", "DCG_b02@5000 (deepest N = 54, counted:",
                         "pass --depth 1020 or less")
    err = one_line_error(run(["scores", rundir, "--qrels", qrels, "--ranked", "--depth", "100", "--measures", "AP"]),
                         "AP@100 (deepest N = 40 with a scale build:", "24 counted without one", "--ties min",
                         "pass --depth 40 or less")
    assert "RBP" not in err
    r = run(["scores", rundir, "--qrels", qrels, "--ranked", "--depth", "100", "--measures", "AP@10,P@10,RR",
             "--means-only", "--format", "csv"])
    assert r.exit_code == 0, r.output  # measures cut at 10 ranks are scaled over those ranks at any depth
    assert pd.read_csv(StringIO(r.stdout))["interval"].notna().all()


def test_scale_over_graded_runs():
    """`scale --grades 3`: the graded scale over all 3^N runs (gRBP_p08 has no ties there; gnDCG_b02 the
    engine's number of distinct values); binary measures refuse --grades."""
    from irscales import enumeration as E

    r = run(["scale", "--measure", "GRBP(p=0.8, max_gain=2)", "--depth", "6", "--grades", "3", "--no-cache"])
    assert r.exit_code == 0, r.output
    assert "729 runs" in r.output and "distinct     729 values" in r.output
    r = run(["scale", "--measure", "NDCG(base=2, gains='graded')", "--depth", "5", "--grades", "3", "--no-cache"])
    want = E.scale(M.DCG(base=2, gains="graded"), 5, c=2, cache=False).n_distinct
    assert r.exit_code == 0 and f"distinct     {want:,} values" in r.output and "243 runs" in r.output
    one_line_error(run(["scale", "--measure", "AP", "--depth", "5", "--grades", "3"]), "uses binary relevance")


# ------------------------------------------------------------------ issue 27: never silently wrong


def _two_runs_files(tmp_path, depth: int):
    """Two runs of ``depth`` documents over 6 topics, B ahead of A on every topic, and their qrels."""
    rng = np.random.default_rng(27)
    runs, qrels = [], []
    for name, shift in (("A", 3), ("B", 0)):
        lines = []
        for t in range(6):
            for r in range(depth):
                lines.append(f"{t + 1} Q0 d{t}-{(r + shift * (t + 1)) % depth} {r + 1} {depth - r} {name}")
        f = tmp_path / f"run.{name}"
        f.write_text("\n".join(lines) + "\n")
        runs.append(f)
    for t in range(6):
        for k in rng.choice(depth, size=5, replace=False):
            qrels.append(f"{t + 1} 0 d{t}-{k} 1")
    q = tmp_path / "qrels"
    q.write_text("\n".join(qrels) + "\n")
    return runs, q


def test_compare_at_depth_1000_tests_the_ranked_values_without_overflow(tmp_path):
    # φ of RBP_p05 at depth 1000 is about 2^1000: as floats its t test overflowed and said p = 1
    (a, b), q = _two_runs_files(tmp_path, 1000)
    r = run(["compare", a, b, "--qrels", q, "--depth", "1000", "--measure", "RBP_p05", "--format", "csv"])
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout)).set_index("test")
    # RBP_p05's φ orders runs as RBP does, and the rank tests see the same signs
    assert f.loc["Sign Test", "p_interval"] == f.loc["Sign Test", "p_original"]
    assert 0 < f.loc["Student's t Test", "p_interval"] < 1 and "overflow" not in r.stderr


def test_ranked_values_above_two_to_the_53_print_exactly(tmp_path):
    (a, b), q = _two_runs_files(tmp_path, 60)
    r = run(["scores", a, b, "--qrels", q, "--depth", "60", "--measures", "RBP_p05", "--ranked", "--phi", "--format", "csv"])
    f = pd.read_csv(StringIO(r.stdout), dtype={"topic": str, "phi": str})
    per_topic = f[f.topic != "all"]
    from irscales.data.collection import Collection
    from irscales.enumeration import phi_runs
    col = Collection.from_trec([a, b], q, depth=60)
    want = phi_runs(M.RBP(p=0.5), col.binary(60))  # (systems, topics), exact
    got = per_topic.pivot(index="system", columns="topic", values="phi").loc[list(col.systems), list(col.topics)]
    assert [[int(x) for x in row] for row in got.to_numpy()] == [[int(x) for x in row] for row in want]
    assert max(int(x) for x in per_topic.phi) > 2**53
    means = f[f.topic == "all"].set_index("system").phi
    for s, name in enumerate(col.systems):  # the mean to 1/(2T) at least: distinct means stay distinct
        exact = sum(int(x) for x in want[s]) / Fraction(len(col.topics))
        assert abs(Fraction(means[name]) - exact) < Fraction(1, 12)


def test_output_that_names_an_input_is_refused(trec, tmp_path):
    d, rundir, qrels, col = trec
    before = Path(qrels).read_bytes()
    for args in (["scores", rundir, "--qrels", qrels, "-o", qrels],
                 ["correlate", rundir, "--qrels", qrels, "-o", next(Path(rundir).iterdir())]):
        r = run(args)
        assert r.exit_code == 2 and "is an input of this command" in r.output
    assert Path(qrels).read_bytes() == before


def test_correlate_needs_two_measures(trec):
    d, rundir, qrels, col = trec
    r = run(["correlate", rundir, "--qrels", qrels, "--measures", "AP"])
    assert r.exit_code == 2 and "at least two" in r.output and "Empty DataFrame" not in r.output


def test_errors_name_flags_not_python_keywords(trec, tmp_path):
    d, rundir, qrels, col = trec
    q = tmp_path / "q"
    q.write_text("\n".join(line for line in Path(qrels).read_text().splitlines() if not line.startswith(col.topics[0] + " ")) + "\n")
    r = run(["scores", rundir, "--qrels", q, "--on-missing-topic", "error"])
    assert r.exit_code == 1 and "--on-missing-topic skip" in r.output and "on_missing_topic=" not in r.output


def notes(r) -> list[str]:
    """The notes and warnings on stderr (not the legend of csv output)."""
    return [ln for ln in r.stderr.splitlines() if ln.startswith("irscales:")]


def test_run_topics_without_judgments_are_skipped_with_a_note_as_trec_eval(trec, tmp_path):
    d, rundir, qrels, col = trec
    q = tmp_path / "q"
    gone = col.topics[0]
    q.write_text("".join(line + "\n" for line in Path(qrels).read_text().splitlines()
                         if not line.startswith(gone + " ")))
    r = run(["scores", rundir, "--qrels", q, "--measures", "AP", "--format", "csv", "--judged-threshold", "0"])
    assert r.exit_code == 0, r.output  # (judged@N of the simulated pool would add its own warning)
    assert notes(r) == [f"irscales: warning: 1 run topic(s) have no judgments in the qrels ({gone}); skipped"]
    topics = set(pd.read_csv(StringIO(r.stdout), dtype={"topic": str})["topic"]) - {"all"}
    assert topics == set(col.topics) - {gone}


def test_exact_repeated_lines_need_the_flag_and_read_as_the_file_without_them(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 a 2\n1 0 b 0\n1 0 c 1\n2 0 x 1\n2 0 y 1\n")
    lines = ["1 Q0 a 1 9 s", "1 Q0 b 2 8 s", "1 Q0 c 3 7 s", "2 Q0 y 1 5 s", "2 Q0 x 2 4 s"]
    for name, text in (("clean", lines), ("repeats", lines[:2] + [lines[1]] + lines[2:])):
        (tmp_path / name).mkdir()
        (tmp_path / name / "run.txt").write_text("\n".join(text) + "\n")
    base = ["--qrels", qrels, "--measures", "AP,P@2,RR", "--format", "csv", "--no-cache"]
    one_line_error(run(["scores", tmp_path / "repeats", *base]),
                   "run.txt:3: duplicate document for topic '1', document 'b' (first at line 2) with the same score",
                   "pass --on-repeated-lines drop")
    r = run(["scores", tmp_path / "repeats", *base, "--on-repeated-lines", "drop"])
    assert r.exit_code == 0, r.output
    assert notes(r) == [f"irscales: warning: {tmp_path / 'repeats' / 'run.txt'}: dropped 1 repeated line(s) (the "
                        "topic, document and score of an earlier line) in 1 topic(s)"]
    want = run(["scores", tmp_path / "clean", *base])
    assert want.exit_code == 0 and notes(want) == [] and r.stdout == want.stdout
    for cmd in ("report", "compare", "correlate", "ipso"):  # every command reading runs takes the flag
        assert "--on-repeated-lines" in run([cmd, "--help"]).output, cmd


def test_usage_errors_exit_2_and_the_help_says_so():
    r = run(["scores", "--no-such-option"])
    assert r.exit_code == 2 and r.output.count("\n") == 1
    assert "2 for a usage error" in " ".join(run(["--help"]).output.split())


# ----------------------------------------------------------- issue 37 item 7: usage errors are exit 2


@pytest.mark.parametrize("sub", ["report", "compare", "ipso"])
def test_alpha_nan_is_a_usage_error(trec, sub):
    d, rundir, qrels, col = trec
    a, b = sorted(Path(rundir).iterdir())[:2]
    r = run([sub, a, b, "--qrels", qrels, "--alpha", "nan"])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.strip() == (f"irscales: error: Invalid value for '--alpha': must be a number in (0, 1) (a "
                                f"significance level, e.g. 0.05), got nan (see irscales {sub} --help)")


@pytest.mark.parametrize("args", [["scale", "--measures", "AP,RR", "--depth", "5"],
                                  ["scale", "--measures", "AP, RR", "--depth", "5"]])
def test_one_measure_commands_say_so(args):
    r = run(args)
    assert r.exit_code == 2
    assert r.stderr.strip() == ("irscales: error: Invalid value for '--measures': scale takes one measure; got 2: "
                                "AP, RR (see irscales scale --help)")


def test_ipso_takes_one_measure(trec):
    d, rundir, qrels, col = trec
    a, b = sorted(Path(rundir).iterdir())[:2]
    r = run(["ipso", a, b, "--qrels", qrels, "--measures", "AP,RR,P@5"])
    assert r.exit_code == 2 and "ipso takes one measure; got 3: AP, RR, P@5" in r.stderr


# ----------------------------------------------------------- issue 37 item 8: one planner for scale


@pytest.mark.parametrize("measure, depth, answers", [("RBP_p08", 52, True), ("P", 100_000, True), ("RR", 64, True),
                                                     ("DCG_b02", 54, True), ("AP", 12, True), ("AP", 30, False),
                                                     ("DCG_b02", 60, False)])
def test_scale_answers_as_the_api(measure, depth, answers, tmp_path, monkeypatch):
    """The CLI refused RBP_p08 at 52 and P at 100,000, which irscales.enumeration.scale answers at once: both
    now plan through irscales.enumeration.plan_scale, so they answer (or refuse) alike."""
    from irscales import enumeration as E

    monkeypatch.setenv("IRSCALES_CACHE", str(tmp_path / "cache"))
    r = run(["scale", "--measures", measure, "--depth", depth, "--format", "csv", "--no-cache"])
    assert r.exit_code == (0 if answers else 1), r.output
    try:
        sc = E.scale(measure, depth, cache=False)
    except ValueError as e:
        assert r.exit_code == 1 and r.stderr.strip().startswith("irscales: error: "), r.output
        assert str(e).split(";")[0].split(" (")[0] in r.stderr  # the same refusal
        return
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout), dtype={"runs": str, "distinct": str})
    assert f["distinct"].iloc[0] == str(sc.n_distinct) and f["runs"].iloc[0] == str(sc.n_runs)
    assert f["method"].iloc[0].startswith(sc.method)


def test_scale_table_names_huge_counts_by_their_power():
    r = run(["scale", "--measures", "P", "--depth", "100000"])
    assert r.exit_code == 0, r.output
    assert "N = 100000: 2^100000 (a 30,103-digit number) runs" in r.stdout
    assert "100,001 values" in r.stdout and len(r.stdout) < 2000


def test_judged_at_n_is_in_the_legend_and_a_one_line_warning_below_the_threshold(trec):
    from irscales import evaluate

    d, rundir, qrels, col = trec
    j = evaluate(qrels, rundir, "P@10", depth=10, judged_threshold=0).judged()
    args = ["scores", rundir, "--qrels", qrels, "--depth", "10", "--measures", "P@10", "--means-only"]
    r = run([*args, "--judged-threshold", "0"])
    assert r.exit_code == 0 and "warning" not in r.stderr, r.output
    assert f"judged@10: from {j.min():.3f} ({j.idxmin()}) to {j.max():.3f} ({j.idxmax()})" in r.stdout
    cut = float(np.sort(j.to_numpy())[1])  # one system below it
    r = run([*args, "--judged-threshold", str(cut)])
    warned = [ln for ln in r.stderr.splitlines() if ln.startswith("irscales: warning: judged@10:")]
    assert r.exit_code == 0 and len(warned) == 1, r.output
    assert f"1 of {len(j)} systems" in warned[0] and j.idxmin() in warned[0]
    r = run([*args, "--judged-threshold", "1.5"])
    assert r.exit_code == 2 and "--judged-threshold" in r.stderr


def test_the_legend_says_what_each_scale_is_over_and_which_columns_repeat_the_measure(trec):
    d, rundir, qrels, col = trec
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "10", "--measures", "AP,P@10,RBP_p05,nDCG_b02",
             "--ranked", "--means-only", "--judged-threshold", "0"])
    assert r.exit_code == 0, r.output
    assert "a perfect run on a topic with fewer than N relevant documents is below 1" in r.stdout
    assert "over all 2^10 binary runs of length 10 ranked by SP = AP x RB; recall base not used" in r.stdout
    assert "P@10 (interval) = P@10: P is already an interval scale at this N" in r.stdout
    assert "RBP_p05@10 (interval) = RBP_p05@10 x 2^10/(2^10 - 1)" in r.stdout
    assert "ranked by DCG_b02 = nDCG x ideal DCG; ideal ranking not used" in r.stdout
    assert "0 is the worst run" not in r.stdout

