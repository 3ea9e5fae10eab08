"""irscales.options is the one home of the reading options: every reader's signature default, every flag of
every command that reads runs and every notebook that takes runs agrees with it (issue 36); and of the other
defaults and vocabularies: the run length, the tie rules, the tests by name, key, label and words, the
comparison's defaults (issue 40)."""

from __future__ import annotations

import inspect
import json
import os
import warnings
from fractions import Fraction
from io import StringIO
from pathlib import Path

import click
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from irscales import comparison, _ecosystem_outputs as ecosystem_outputs, evaluation, interval, ipso, options
from irscales.cli import main
from irscales.cli._messages import as_flags
from irscales.data import _frames as frames, trec, _trec_arrays as trec_arrays
from irscales.data.collection import Collection
from irscales.enumeration.ties import TIES
from irscales.measures import P
from irscales.papers import mm23
from irscales.paths import repo_root
from irscales.stats import _significance as S

READERS = {"Collection.from_trec": Collection.from_trec, "read_trec": trec.read_trec,
           "relevance_arrays": trec_arrays.relevance_arrays, "read_qrels": trec.read_qrels,
           "qrels_from_ir_datasets": trec.qrels_from_ir_datasets, "qrels_frame": frames.qrels_frame}


@pytest.mark.parametrize("name", READERS)
def test_every_reader_default_is_the_options_default(name):
    params = inspect.signature(READERS[name]).parameters
    found = {k: params[k].default for k in options.READING_DEFAULTS if k in params}
    assert found, f"{name} takes no reading option"
    assert found == {k: options.READING_DEFAULTS[k] for k in found}


def test_from_trec_and_read_trec_take_every_reading_option():
    for fn in (Collection.from_trec, trec.read_trec):
        params = inspect.signature(fn).parameters
        # read_trec passes the topic policies on to relevance_arrays (**policies)
        own = set(options.READING_DEFAULTS) - ({"on_missing_topic", "on_no_relevant", "on_uneven_topics"}
                                                if fn is trec.read_trec else set())
        assert own <= set(params), fn.__qualname__


def _commands_reading_runs():
    return {name: cmd for name, cmd in main.commands.items()
            if any(p.name == "runs" or p.name == "run_a" for p in cmd.params)}


def test_every_command_reading_runs_has_every_reading_flag_with_its_default():
    cmds = _commands_reading_runs()
    assert {"scores", "report", "compare", "correlate", "ipso"} <= set(cmds)
    for name, cmd in cmds.items():
        flags = {p.name: p for p in cmd.params if p.name in options.READING_OPTIONS}
        assert set(flags) == set(options.READING_OPTIONS), name
        for k, p in flags.items():
            o = options.READING_OPTIONS[k]
            assert p.default == o.default and list(p.type.choices) == list(o.choices), (name, k)
            assert p.opts == [o.flag] and p.help == o.help, (name, k)


def test_evaluation_reexports_the_defaults_and_refuses_unknown_options():
    assert evaluation.READING_DEFAULTS is options.READING_DEFAULTS
    with pytest.raises(TypeError, match="unknown reading option.*on_missing_topics"):
        evaluation.load_collection("q", "r", None, on_missing_topics="skip")
    with pytest.raises(ValueError, match=r"on_missing_topic must be one of \('skip', 'error'\), got 'drop'"):
        evaluation.load_collection("q", "r", None, on_missing_topic="drop")


def test_a_keyword_in_a_message_becomes_its_flag():
    for o in options.READING:
        assert as_flags(f"pass {o.name}='{o.choices[-1]}'") == f"pass {o.flag} {o.choices[-1]}"


def test_reading_given_fills_the_defaults_and_checks():
    assert options.reading_given(negative=None, on_repeated_lines="drop") == \
        {**options.READING_DEFAULTS, "on_repeated_lines": "drop"}
    with pytest.raises(ValueError, match="negative must be one of"):
        options.reading_given(negative="keep")


ROOT = repo_root()


@pytest.mark.skipif(ROOT is None, reason="not a source checkout (no notebooks/)")
def test_every_notebook_taking_runs_takes_every_reading_option():
    taking = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
        src = "".join(cell["source"])
        names = {line.split(":")[0].split("=")[0].strip() for line in src.splitlines() if line.strip()}
        if "RUNS" in names:
            taking.append(path.stem)
            missing = set(options.READING_OPTIONS) - names
            assert not missing, f"{path.name}: no parameter {sorted(missing)}"
            code = "".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
            assert "reading_given(" in code, f"{path.name}: the reading parameters are not read"
    assert "00_quickstart" in taking


# -------------------------------------------------- the other defaults and vocabularies have one home (issue 40)

def _command_params(option: str) -> dict[str, click.Parameter]:
    """Every command's parameter named ``option``, by command."""
    return {name: p for name, cmd in main.commands.items() for p in cmd.params if p.name == option}


def _default(fn, name):
    return inspect.signature(fn).parameters[name].default


def _two_runs(tmp_path, n=15):
    """Two runs of ``n`` documents on three topics, and their qrels."""
    files = []
    for tag in ("a", "b"):
        path = tmp_path / f"input.{tag}"
        path.write_text("".join(f"{t} Q0 d{(i * 7 + t + len(tag)) % 23} {i} {n - i} {tag}\n"
                                for t in (1, 2, 3) for i in range(1, n + 1)))
        files.append(path)
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{t} 0 d{d} {int((d + t) % 3 == 0)}\n" for t in (1, 2, 3) for d in range(23)))
    return files, qrels


def test_the_depth_rule_is_read_from_its_home(tmp_path, monkeypatch):
    files, qrels = _two_runs(tmp_path)
    assert _default(evaluation.evaluate, "depth") is None and _default(Collection.from_trec, "depth") is None
    assert options.default_depth(False, 15) == 15 and options.default_depth(False) is None
    depths = _command_params("depth")
    assert set(depths) >= {"scores", "report", "compare", "correlate", "ipso"}
    for name, p in depths.items():
        if name not in ("scale", "sample-data"):  # scale: N is required; sample-data writes runs of that length
            assert p.default is None and options.DEPTH_RULE in p.help, name
    monkeypatch.setattr(options, "RANKED_DEFAULT_DEPTH", 7)  # a changed rule reaches every reader
    ev = evaluation.evaluate(qrels, files, "P,RR@3", ranked=True)
    assert ev.depth == 7 and ev.cutoffs == {"P@7": 7, "RR@3": 3}  # a measure named with a cut-off keeps its own N
    assert evaluation.evaluate(qrels, files, "P").depth == 15 == Collection.from_trec(files, qrels).depth
    assert evaluation.evaluate(qrels, files, "P@5").depth == 5  # only cut-offs: the runs are read to the largest
    r = CliRunner().invoke(main, ["ipso", *map(str, files), "--qrels", str(qrels), "--measures", "P",
                                  "--format", "csv"], catch_exceptions=False)
    assert r.exit_code == 0 and pd.read_csv(StringIO(r.stdout))["depth"].tolist() == [7]


def test_the_tie_rules_and_their_default():
    assert options.DEFAULT_TIES == TIES[0]
    params = _command_params("ties")
    assert {"scores", "report", "compare", "correlate"} <= set(params)
    for name, p in params.items():
        assert list(p.type.choices) == list(TIES) and p.default == options.DEFAULT_TIES, name
    for fn in (evaluation.evaluate, ecosystem_outputs.interval_name, options.Settings):
        assert _default(fn, "ties") == options.DEFAULT_TIES, fn.__qualname__
    assert evaluation.Evaluation.__dataclass_fields__["ties"].default == options.DEFAULT_TIES
    assert "ties" not in inspect.signature(interval.plan).parameters  # below the boundary: the settings, passed down


def test_every_test_name_map_reads_the_home():
    paired = {t.name: t for t in options.PAIRED_TESTS}
    assert comparison.TESTS == options.COMPARISON_TESTS == {n: t.key for n, t in paired.items()}
    assert S.TESTS == tuple(p.key for p in options.SIGNIFICANCE)
    assert S.TEST_LABELS == {p.key: p.label for p in options.SIGNIFICANCE}
    assert S.ORDINAL_TESTS == {p.key for p in options.SIGNIFICANCE if p.ordinal}
    assert set(options.COMPARISON_TESTS.values()) - {"randomisation"} <= set(S.TESTS)
    report = _command_params("test")["report"]
    assert list(report.type.choices) == list(paired) and report.default == options.COMPARISON_DEFAULTS["test"]
    ipso_test = _command_params("test")["ipso"]
    metric_names = [t.name for t in options.PAIRED_TESTS if t.key in options.METRIC_TESTS]
    assert list(ipso_test.type.choices) == metric_names and ipso_test.default == options.COMPARISON_DEFAULTS["test"]
    assert ipso.METRIC_TESTS == options.METRIC_TESTS
    for key in options.METRIC_TESTS:  # by key or by name, in the IPSO rule's lines by name
        name = options.TEST_NAMES[key]
        assert ipso.test_key(key) == ipso.test_key(name) == key
        res = ipso.corroborate(np.eye(5, dtype=int), np.eye(5, dtype=int)[::-1], P(k=5), 5, test=name)
        assert f", {name} test," in res.lines()[0]
    with pytest.raises(ValueError, match="unknown test 'tukey'; choose from sign, wilcoxon, t"):
        ipso.test_key("tukey")
    assert mm23.TEST_NAMES == {k: options.TEST_NAMES[k] for k in options.METRIC_TESTS}
    assert tuple(mm23.TEST_LABELS) == options.METRIC_TESTS


@pytest.mark.parametrize("test", list(options.COMPARISON_TESTS))
def test_the_comparison_legend_names_each_test_in_the_homes_words(test):
    scores = np.random.default_rng(1).random((6, 3))
    table = comparison.comparison_table({"m": scores}, {"m": None}, ["x", "y", "z"], test=test)
    assert f"({options.TEST_WORDS[test]}" in table.legend


def test_the_comparison_defaults_are_the_homes():
    home = options.COMPARISON_DEFAULTS
    for fn in (evaluation.Evaluation.compare, comparison.comparison_table):
        assert {k: _default(fn, k) for k in home} == home, fn.__qualname__
    report = {p.name: p for p in main.commands["report"].params}
    assert {k: report[k].default for k in home} == home
    assert list(report["correction"].type.choices) == list(options.CORRECTIONS)
    assert list(report["order"].type.choices) == list(options.ROW_ORDERS)


def test_the_default_measures_are_the_homes():
    assert _default(evaluation.evaluate, "measures") == options.DEFAULT_MEASURES
    params = _command_params("measure_names")
    assert params["scores"].default == params["report"].default == options.DEFAULT_MEASURES


# ------------------------------------------- issue 48: arguments checked once, at the door; one rule for N

BAD_MAX_REL_ERROR = (0, 0.0, -0.1, -1e-300, float("nan"), float("inf"), float("-inf"), "0.01", None, True, False)


@pytest.mark.parametrize("bad", BAD_MAX_REL_ERROR, ids=repr)
def test_every_bad_max_rel_error_is_refused_naming_it_before_any_file_is_read(bad, tmp_path):
    missing = tmp_path / "no-such"  # nothing is read: a missing file would be the error otherwise
    with pytest.raises(options.ArgumentError, match=r"^max_rel_error must be a finite number greater than 0 \(") as e:
        evaluation.evaluate(missing / "qrels", missing, "AP", ranked=True, max_rel_error=bad)
    assert e.value.name == "max_rel_error" and e.value.flag == "--max-rel-error" and isinstance(e.value, ValueError)
    assert "\n" not in str(e.value) and str(e.value).endswith(f"got {bad!r}")
    with pytest.raises(options.ArgumentError, match="max_rel_error"):
        options.Settings(max_rel_error=bad)


@pytest.mark.parametrize("good", [1e-9, 0.01, 0.5, 1, 1.0, 4, 100.0])
def test_max_rel_error_above_one_is_accepted_at_the_door(good):
    """Issue 51: a proven factor (1.0: hi ≤ 2·lo) is a request the door takes; whether a route reaches it is the
    route's to say (AP beyond the depth its 1 % reaches is refused with the error it reaches)."""
    assert options.check_max_rel_error(good) == float(good)
    assert options.Settings(max_rel_error=good).max_rel_error == float(good)
    assert options.Settings(max_rel_error=0.01).rel_error == Fraction(1, 100)  # the one exact reading


@pytest.mark.parametrize("bad", ["0", "-0.1", "nan", "inf", "-inf", "abc"])
def test_the_command_line_refuses_a_bad_max_rel_error_with_exit_code_2(bad, tmp_path, monkeypatch):
    files, qrels = _two_runs(tmp_path)

    def no_reading(*a, **k):
        raise AssertionError("a file was read")

    monkeypatch.setattr(Collection, "from_trec", no_reading)
    for cmd in ("scores", "report", "correlate"):
        r = CliRunner().invoke(main, [cmd, *map(str, files), "--qrels", str(qrels), "--max-rel-error", bad])
        assert r.exit_code == 2, (cmd, r.output)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "'--max-rel-error'" in lines[0] and f"irscales {cmd} --help" in lines[0], r.stderr
        assert bad in lines[0]  # the user's spelling


@pytest.mark.parametrize("kw, name", [
    (dict(depth=0), "depth"), (dict(depth=2.5), "depth"), (dict(depth=True), "depth"), (dict(ties="median"), "ties"),
    (dict(judged_threshold=float("nan")), "judged_threshold"), (dict(ranked="yes"), "ranked"),
    (dict(on_no_relevant="drop"), "on_no_relevant"),
])
def test_every_setting_is_checked_at_the_door_naming_it(kw, name, tmp_path):
    with pytest.raises(options.ArgumentError) as e:
        evaluation.evaluate(tmp_path / "none", tmp_path / "none", "AP", **kw)
    assert e.value.name == name and str(e.value).startswith(f"{name} must be")


def test_settings_are_given_once_and_passed_down(tmp_path):
    files, qrels = _two_runs(tmp_path)
    s = options.Settings(depth=5, ranked=True, ties="mid", reading={"negative": "zero"})
    assert s.reading_options["negative"] == "zero" and s.reading_options["on_missing_topic"] == "skip"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluation.evaluate(qrels, files, "AP", settings=s)
    assert ev.settings is s and ev.ties == "mid" and ev.cutoffs == {"AP@5": 5}
    with pytest.raises(options.ArgumentError, match="settings comes alone: give depth inside it"):
        evaluation.evaluate(qrels, files, "AP", depth=3, settings=s)
    with pytest.raises(options.ArgumentError, match="settings must be an irscales.options.Settings"):
        evaluation.evaluate(qrels, files, "AP", settings={"depth": 3})


def test_below_the_boundary_nothing_redefaults_ties_or_max_rel_error():
    """Issue 50 item 3: the tie rule's literal and the 1 % default live in irscales.options only; elsewhere a default
    is the option's name (DEFAULT_TIES, DEFAULT_MAX_REL_ERROR), never the value again."""
    import ast

    src = Path(options.__file__).parent
    unq, literal = [], []
    for p in sorted(src.rglob("*.py")):
        if p.name == "options.py":
            continue
        text = p.read_text()
        unq += [f"{p.relative_to(src)}:{i}" for i, line in enumerate(text.splitlines(), 1) if '"unq"' in line]
        for node in ast.walk(ast.parse(text)):
            defaults = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defaults = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)]
            elif isinstance(node, ast.AnnAssign) and node.value is not None:  # a dataclass field
                defaults = [node.value]
            literal += [f"{p.relative_to(src)}:{d.lineno}" for d in defaults
                        if isinstance(d, ast.Constant) and (d.value == "unq" or d.value == 0.01)]
    assert not unq, unq
    assert not literal, literal


def _quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # judged@N of the generated runs
        return evaluation.evaluate(*args, **kw)


def test_a_measure_named_with_a_cut_off_is_taken_there_whatever_the_depth(tmp_path):
    files, qrels = _two_runs(tmp_path)
    ev = _quiet(qrels, files, "AP,nDCG@12,P@3", ranked=True)  # no depth: 10 for AP, 12 and 3 from the names
    assert ev.cutoffs == {"AP@10": 10, "nDCG@12": 12, "P@3": 3} and ev.depth == 12
    assert ev.scales["nDCG@12"].N == 12 and ev.scales["AP@10"].N == 10 and ev.scales["P@3"].N == 3
    plain = _quiet(qrels, files, "AP,nDCG@12,P@3")  # plain values: the same rule, the longest run for AP
    assert list(plain.measures) == ["AP@15", "nDCG@12", "P@3"]
    at12 = _quiet(qrels, files, "nDCG@12", depth=12)
    assert np.array_equal(plain.values("nDCG@12").to_numpy(), at12.values("nDCG@12").to_numpy())
    assert np.array_equal(ev.values("nDCG@12").to_numpy(), at12.values("nDCG@12").to_numpy())  # --ranked: the same
    deep = _quiet(qrels, files, "nDCG@12", depth=4, ranked=True)  # a depth below the cut-off does not cut it
    assert (deep.interval("nDCG@12").to_numpy() == ev.interval("nDCG@12").to_numpy()).all()
    with pytest.raises(options.ArgumentError, match="name AP and AP@10, both AP@10 at depth 10: give it once"):
        _quiet(qrels, files, "AP,AP@10", ranked=True)


def test_the_column_says_its_n_with_and_without_ranked(tmp_path):
    files, qrels = _two_runs(tmp_path)
    for extra, label in (([], "AP@15"), (["--ranked"], "AP@10"), (["--ranked", "--depth", "7"], "AP@7")):
        r = CliRunner().invoke(main, ["scores", *map(str, files), "--qrels", str(qrels), "--measures", "AP,P@3",
                                      "--means-only", "--format", "csv", *extra])
        assert r.exit_code == 0, r.output
        assert sorted(set(pd.read_csv(StringIO(r.stdout))["measure"])) == sorted([label, "P@3"]), extra
    r = CliRunner().invoke(main, ["scores", *map(str, files), "--qrels", str(qrels), "--measures", "nDCG@12",
                                  "--ranked", "--means-only"])
    assert r.exit_code == 0, r.output
    assert "nDCG@12" in r.stdout and "run length N = 12" in r.stdout


@pytest.mark.parametrize("option", ["-o", "--pairs", "--figure"])
def test_an_output_onto_an_input_names_its_own_option(option, tmp_path):
    files, qrels = _two_runs(tmp_path)
    target = files[0] if option != "--figure" else files[0].rename(tmp_path / "input.a.png")
    runs = [target if f == files[0] else f for f in files]
    before = target.read_bytes()
    r = CliRunner().invoke(main, ["report", *map(str, runs), "--qrels", str(qrels), option, str(target)])
    assert r.exit_code == 2 and "is an input of this command" in r.stderr, r.output
    flag = {"-o": "-o / --output"}.get(option, option)
    assert f"'{flag}'" in r.stderr and target.read_bytes() == before


def test_an_output_that_cannot_be_written_fails_before_the_computation(tmp_path, monkeypatch):
    files, qrels = _two_runs(tmp_path)

    def no_reading(*a, **k):
        raise AssertionError("a file was read")

    monkeypatch.setattr(Collection, "from_trec", no_reading)
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)  # root writes there anyway: then only the other cases are checked
    cases = [("--figure", tmp_path / "nowhere" / "cmp.png", "does not exist"),
             ("--pairs", files[1] / "pairs.csv", "does not exist"), ("-o", tmp_path / "x" / "t.tex", "does not exist")]
    if not os.access(locked, os.W_OK):
        cases.append(("--figure", locked / "cmp.png", "cannot be written"))
    try:
        for option, path, why in cases:
            r = CliRunner().invoke(main, ["report", *map(str, files), "--qrels", str(qrels), option, str(path)])
            assert r.exit_code == 2, (option, r.output)
            assert ("'-o / --output'" if option == "-o" else f"'{option}'") in r.stderr and why in r.stderr
    finally:
        locked.chmod(0o700)


def test_alpha_test_and_correction_are_checked_at_the_door():
    scores = np.random.default_rng(1).random((6, 3))
    for kw, name in ((dict(alpha=float("nan")), "alpha"), (dict(alpha=1), "alpha"), (dict(test="anova"), "test"),
                     (dict(correction="fdr"), "correction"), (dict(order="random"), "order"),
                     (dict(permutations=0), "permutations")):
        with pytest.raises(options.ArgumentError) as e:
            comparison.comparison_table({"m": scores}, {"m": None}, ["x", "y", "z"], **kw)
        assert e.value.name == name


def test_the_provider_is_registered_by_importing_irscales_and_ir_measures():
    import subprocess
    import sys

    for order in ("import irscales, ir_measures", "import ir_measures, irscales"):
        code = (f"{order}; import sys; print('irscales' in ir_measures.providers.registry, "
                "'irscales.evaluation' in sys.modules)")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.split() == ["True", "False"], (order, out)  # registered, without loading the evaluation layer
