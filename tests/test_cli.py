"""The command line on TREC files generated in code: every subcommand, bad input, README commands."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from irscales import measures as M
from irscales.cli import main
from irscales.collections import load_preset
from irscales.paths import repo_root


@pytest.fixture(scope="module")
def trec(tmp_path_factory):
    d = tmp_path_factory.mktemp("trec")
    col = load_preset("sim-t08", depth=30, seed=3).subset(systems=[0, 1, 2, 3], topics=list(range(12)))
    rundir, qrels = col.to_trec(d)
    return d, rundir, qrels, col


def run(args, cwd=None):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_help_on_every_subcommand():
    for sub in ["scores", "compare", "scale", "correlate", "ipso"]:
        r = run([sub, "--help"])
        assert r.exit_code == 0 and "Usage" in r.output


def test_scores_matches_library(trec):
    d, rundir, qrels, col = trec
    r = run(["scores", rundir, "--qrels", qrels, "--depth", "10", "--measures", "AP,RBP_p05", "--format", "csv"])
    assert r.exit_code == 0, r.output
    from io import StringIO

    f = pd.read_csv(StringIO(r.output), dtype={"topic": str})
    assert set(f["measure"]) == {"AP", "RBP_p05"}
    per = f[(f.measure == "AP") & (f.topic != "all")]
    ap = col.evaluate(M.AP(), 10)
    got = per.pivot(index="system", columns="topic", values="value").loc[list(col.systems), list(col.topics)]
    assert np.allclose(got.to_numpy(), ap, atol=1e-9)
    # RBP p=1/2 is its own interval scale: φ = 2^N·m + 1 (ranks start at 1 for the empty run)
    rb = f[(f.measure == "RBP_p05") & (f.topic != "all")]
    assert np.allclose(rb["ranked"], rb["value"] * 2**10 + 1)


def test_compare_and_ipso(trec):
    d, rundir, qrels, col = trec
    a, b = sorted(Path(rundir).iterdir())[:2]
    r = run(["compare", a, b, "--qrels", qrels, "--depth", "10", "--measure", "RBP_p05"])
    assert r.exit_code == 0, r.output
    assert "Sign Test" in r.output and "IPSO" in r.output
    r = run(["compare", a, b, "--qrels", qrels, "--depth", "10", "--measure", "RBP_p05", "--format", "csv"])
    from io import StringIO

    f = pd.read_csv(StringIO(r.output))
    assert not f["changed"].any()  # RBP p=1/2 is an interval scale: no verdict may change
    r = run(["ipso", a, b, qrels, "--depth", "10", "--metric", "P@10", "--test", "sign"])
    assert r.exit_code == 0 and "report: B" in r.output


def test_scale_and_correlate(trec):
    d, rundir, qrels, col = trec
    r = run(["scale", "--measure", "DCG_b02", "--depth", "5", "--no-cache"])
    assert r.exit_code == 0, r.output
    assert re.search(r"distinct\s+\d+ values", r.output)
    r = run(["correlate", rundir, "--qrels", qrels, "--depth", "5", "--measures", "P,RBP_p05,AP", "--format", "csv"])
    assert r.exit_code == 0, r.output
    from io import StringIO

    f = pd.read_csv(StringIO(r.output))
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
    assert r.exit_code == 1 and "unknown measure 'FOO'" in r.output
    r = CliRunner().invoke(main, ["scale", "--measure", "AP", "--depth", "0"])
    assert r.exit_code == 2


def _readme_commands() -> list[str]:
    root = repo_root()
    if root is None:
        pytest.skip("not a source checkout")
    text = (root / "README.md").read_text()
    block = text.split("## Use it on your own runs", 1)[1]
    cmds = [ln.strip() for ln in block.splitlines() if ln.strip().startswith("irscales ")]
    return cmds


def test_readme_commands_run(trec, monkeypatch):
    d, rundir, qrels, col = trec
    monkeypatch.chdir(d)  # README commands use runs/ and qrels.txt, as to_trec writes them
    cmds = _readme_commands()
    assert len(cmds) >= 5
    for c in cmds:
        args = shlex.split(c)[1:]
        r = CliRunner().invoke(main, args)
        assert r.exit_code == 0, f"{c}\n{r.output}"
