"""The README's promises, executed (issue 17): every Python block runs, the one-line export of a
simulated collection works, every ``make`` target it names exists (``make test`` and
``make reproduce`` themselves are what CI and the reproduction run), and the files it points at
are in the repository. The ``irscales`` commands of its shell blocks run in tests/test_cli.py."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from irscales.paths import repo_root

ROOT = repo_root()
pytestmark = pytest.mark.skipif(ROOT is None, reason="not a source checkout (no README.md)")
README = (ROOT / "README.md").read_text() if ROOT else ""


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README, flags=re.M | re.S)


def _export_command() -> str:
    cmds = re.findall(r'`(python -c "from irscales[\w.]* import load_preset;[^`]*)`', README)
    assert len(cmds) == 1, "the README's one-line export of a simulated collection"
    return cmds[0]


def test_export_one_liner_writes_simulated_runs(tmp_path):
    args = shlex.split(_export_command())
    assert args[0] == "python"
    r = subprocess.run([sys.executable, *args[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "qrels.txt").is_file() and len(list((tmp_path / "runs").iterdir())) == 4


def _section(title: str) -> str:
    start = README.index(f"## {title}")
    end = README.find("\n## ", start + 3)
    return README[start:end if end > 0 else None]


def _pytrec_means(demo, name: str, key: str) -> dict[str, float]:
    """pytrec_eval's mean of trec_eval measure ``key`` per run of the demo folder (an independent reference)."""
    import numpy as np
    import pytrec_eval

    from irscales.data.trec import read_qrels, read_run

    q = read_qrels(demo / "qrels.txt")
    qd: dict = {}
    for t, doc, g in q[["topic", "docno", "rel"]].itertuples(index=False):
        qd.setdefault(t, {})[doc] = int(g)
    ev = pytrec_eval.RelevanceEvaluator(qd, {name})
    out = {}
    for f in sorted((demo / "runs").iterdir()):
        r = read_run(f)
        rd: dict = {}
        for t, doc, sc in r[["topic", "docno", "score"]].itertuples(index=False):
            rd.setdefault(t, {})[doc] = float(sc)
        res = ev.evaluate(rd)
        out[r.attrs["system"]] = float(np.mean([res[t][key] for t in res if any(g > 0 for g in qd[t].values())]))
    return out


@pytest.mark.data
def test_a_new_user_runs_the_three_commands(cranfield_demo, monkeypatch):
    """The README's "Your runs in three commands", as a new user types them (the set-up line is this very
    environment: make install made .venv, where the irscales command lives); values checked against pytrec_eval."""
    from io import StringIO

    import pandas as pd
    from click.testing import CliRunner

    from irscales.cli import main

    setup, block = _blocks("bash")[:2]
    steps = [ln.split("#")[0].strip() for ln in setup.splitlines() if ln.strip()]
    assert steps == ["make install", "source .venv/bin/activate"] and "install" in _makefile_targets()
    lines = [ln.split("#")[0].strip() for ln in block.splitlines() if ln.strip()]
    assert len(lines) == 3 and lines[0] == "irscales sample-data demo"  # made by the cranfield_demo fixture
    monkeypatch.chdir(cranfield_demo)
    args = shlex.split(lines[1])
    assert args[0] == "irscales"
    r = CliRunner().invoke(main, args[1:] + ["--format", "csv"])
    assert r.exit_code == 0, r.output
    f = pd.read_csv(StringIO(r.stdout))
    ap = f[f.measure == "AP@10"].set_index("system")["value"]  # AP at the default depth 10: its column says so
    want = _pytrec_means(cranfield_demo / "demo", "map_cut.10", "map_cut_10")  # AP at the default depth 10
    assert set(ap.index) == set(want) and len(want) == 10
    assert all(abs(ap[s] - want[s]) < 1e-12 for s in want)
    assert f["interval"].between(0, 1).all()
    report = shlex.split(lines[2])  # the comparison table in LaTeX, written to a file
    r = CliRunner().invoke(main, report[1:])
    assert r.exit_code == 0, r.output
    tex = (cranfield_demo / report[report.index("-o") + 1]).read_text()
    assert tex.startswith("% irscales comparison table: requires") and "adjustbox" not in tex


def test_the_readme_reads_in_order():
    """Issue 48: what it is, the two set-up commands, the three commands on your runs — then the papers and the
    report's statuses; make test's duration stated."""
    order = [README.index(x) for x in ("# irscales", "## Set up: two commands", "## Your runs in three commands",
                                       "## Tests and the full reproduction", "## The papers and the report")]
    assert order == sorted(order)
    assert README.index("```bash") < README.index("Open `figures/report.html` first")
    assert README[:README.index("```bash")].count("\n") < 20  # the first command within the first screen
    assert re.search(r"`make test` takes about \d+ minutes on the 2-core machine", README)


@pytest.mark.data
def test_every_command_of_the_readme_runs(cranfield_demo, monkeypatch):
    from click.testing import CliRunner

    from irscales.cli import main

    monkeypatch.chdir(cranfield_demo)
    cmds = [ln.strip() for ln in _section("Use it on your own runs").splitlines() if ln.strip().startswith("irscales ")]
    assert len(cmds) >= 9
    for c in cmds:
        r = CliRunner().invoke(main, shlex.split(c)[1:])
        assert r.exit_code == 0, f"{c}\n{r.output}"


@pytest.mark.data
def test_every_python_example_runs_and_gives_the_right_values(cranfield_demo, monkeypatch):
    from fractions import Fraction

    monkeypatch.chdir(cranfield_demo)
    blocks = re.findall(r"^```python\n(.*?)^```", _section("From Python"), flags=re.M | re.S)
    assert len(blocks) >= 4
    ns: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"README.md From Python block {i + 1}", "exec"), ns)  # noqa: S102
    ev, means = ns["ev"], ns["means"]
    want = _pytrec_means(cranfield_demo / "demo", "map_cut.10", "map_cut_10")
    assert all(abs(means.loc[s, "AP@10"] - want[s]) < 1e-12 for s in want)
    K = int(ev.scale_table().set_index("measure").loc["AP@10", "K"])
    phi = ev.interval("AP", raw=True)
    for s in ev.systems:  # the interval-scaled mean is the affine map of the mean of φ
        assert means.loc[s, "AP@10 (interval)"] == float((Fraction(int(phi[s].sum()), len(phi)) - 1) / (K - 1))
    assert ns["ap"].shape == ns["ap_interval"].shape == (len(ev.topics), 10)  # (topics, systems)
    assert "<sup>" in ns["markdown"] and r"\begin{tabular}" in ns["latex"] and "lucene.porter.BM25" in ns["markdown"]
    assert ns["res"].lines()[-1].startswith("report:")
    assert set(ns["taus"].columns) >= {"tau", "tau_interval", "tau_ap", "tau_ap_interval"}
    assert ns["small"].values("AP").to_numpy().tolist() == [[1.0], [1.0]]  # d1 and d3 are relevant, first
    assert ns["rbp"].n_distinct == 2**40


def _makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-zA-Z][\w-]*):", text, flags=re.M))


def test_every_make_command_names_a_target():
    named = re.findall(r"\bmake ([a-z][\w-]*)", README)
    assert {"test", "reproduce", "data"} <= set(named)
    missing = sorted(set(named) - _makefile_targets())
    assert not missing, f"README names make targets the Makefile lacks: {missing}"
    # `make reproduce FULL=False` passes a variable the Makefile reads
    assert "make reproduce FULL=False" in README and re.search(r"^FULL \?= ", (ROOT / "Makefile").read_text(), re.M)


def test_files_the_readme_points_at_exist():
    paths = set(re.findall(r"`((?:data|docs|figures|notebooks|benchmarks|tests|src)/[\w./-]*)`", README))
    paths |= {"environment.yml", "requirements.lock"}
    generated = {"figures/REPORT.md", "figures/public/", "figures/executed/", "data/cache/", "data/external/"}
    missing = sorted(p for p in paths - generated if not (ROOT / p.rstrip("/")).exists()
                     and not list(ROOT.glob(p)))
    assert not missing, f"README points at missing files: {missing}"
    assert "../shared" not in README.replace("`../shared` beside the checkout", "")


def test_module_map_matches_the_tree():
    """Every room of src/irscales is in the README's layout block, and every room named there exists."""
    block = README[README.index("src/irscales/ "):README.index("notebooks/        one notebook")]
    pkg = Path(__file__).resolve().parents[1] / "src" / "irscales"
    rooms = {p.name + ("/" if p.is_dir() else "") for p in pkg.iterdir()
             if p.name != "__init__.py" and not p.name.startswith((".", "__pycache__"))}
    named = set(re.findall(r"^\s{2}(\w+(?:\.py|/))", block, flags=re.M))
    named |= set(re.findall(r"^\s{2}\w+\.py, (\w+\.py)", block, flags=re.M))
    assert rooms <= named, f"README layout misses {sorted(rooms - named)}"
    assert named <= rooms, f"README layout names {sorted(named - rooms)}, which do not exist"


@pytest.mark.data
def test_the_worked_example_of_what_the_interval_value_is(cranfield_demo):
    """Issue 36 item 3: the README's numbers on what an interval value is (a perfect AP on a topic with two
    relevant documents, the nDCG@10 means) and on judged@10 of the demo, recomputed with evaluate."""
    import warnings

    from irscales.evaluation import evaluate

    text = " ".join(README.split())
    demo = cranfield_demo / "demo"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # judged@10 of Cranfield: the warning the README describes
        ev = evaluate(demo / "qrels.txt", demo / "runs", "AP,nDCG@10", ranked=True)
    m = re.search(r"Cranfield topic (\d+) has (\d+) relevant documents and `([\w.]+)` retrieves both at ranks 1 and 2: "
                  r"AP = 1, yet AP \(interval\) = ([\d.]+) at N = (\d+) \(SP = (\d+) is value φ = (\d+) of the "
                  r"K = ([\d,]+) values SP takes over the 2\^(\d+) runs\)", text)
    assert m, "the README's worked example"
    topic, rb, system, iv, N, sp, phi, K, n = m.groups()
    assert ev.depth == int(N) == int(n) and int(rb) == int(sp) == 2
    assert ev.collection.rb[list(ev.topics).index(topic)] == int(rb)
    assert ev.values("AP").loc[topic, system] == 1.0
    assert ev.collection.binary(ev.depth)[list(ev.systems).index(system), list(ev.topics).index(topic)][:2].all()
    assert ev.interval("AP", raw=True).loc[topic, system] == int(phi) and ev.scales["AP@10"].K == int(K.replace(",", ""))
    assert f"{float(ev.interval('AP').loc[topic, system]):.2f}" == iv
    from click.testing import CliRunner

    from irscales.cli import main

    helptext = " ".join(CliRunner().invoke(main, ["scores", "--help"]).output.split())
    assert f"a perfect AP on a topic with {rb} relevant documents is about {iv} at N = {N}" in helptext
    m = re.search(r"nDCG@10 means, ([\d.]+)–([\d.]+), are ([\d.]+)–([\d.]+) on the interval scale \(graded gains: "
                  r"the scale is over all (\d)\^10 runs of grades 0\.\.(\d)\)", text)
    assert m, "the README's nDCG@10 example"
    means = ev.means()
    lo, hi = means["nDCG@10"], means["nDCG@10 (interval)"]
    assert m.groups()[:4] == (f"{lo.min():.2f}", f"{lo.max():.2f}", f"{hi.min():.2f}", f"{hi.max():.2f}")
    assert int(m.group(5)) == ev.scales["nDCG@10"].c + 1 and int(m.group(6)) == ev.scales["nDCG@10"].c
    m = re.search(r"the ten demo runs have (\d+)–(\d+)% of their top 10 judged", text)
    j = ev.judged()
    assert m and m.groups() == (f"{100 * j.min():.0f}", f"{100 * j.max():.0f}") and (j < 0.9).all()
