"""irscales.options is the one home of the reading options: every reader's signature default, every flag of
every command that reads runs and every notebook that takes runs agrees with it (issue 36); and of the other
defaults and vocabularies: the run length, the tie rules, the tests by name, key, label and words, the
comparison's defaults (issue 40)."""

from __future__ import annotations

import inspect
import json
from io import StringIO

import click
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from irscales import comparison, ecosystem_outputs, evaluation, interval, ipso, options
from irscales.cli import main
from irscales.cli_messages import as_flags
from irscales.data import frames, trec, trec_arrays
from irscales.data.collection import Collection
from irscales.enumeration.ties import TIES
from irscales.measures import P
from irscales.papers import mm23
from irscales.paths import repo_root
from irscales.stats import significance as S

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
    assert evaluation.evaluate(qrels, files, "P@5", ranked=True).depth == 7
    assert evaluation.evaluate(qrels, files, "P@5").depth == 15 == Collection.from_trec(files, qrels).depth
    r = CliRunner().invoke(main, ["ipso", *map(str, files), "--qrels", str(qrels), "--measures", "P@5",
                                  "--format", "csv"], catch_exceptions=False)
    assert r.exit_code == 0 and pd.read_csv(StringIO(r.stdout))["depth"].tolist() == [7]


def test_the_tie_rules_and_their_default():
    assert options.DEFAULT_TIES == TIES[0]
    params = _command_params("ties")
    assert {"scores", "report", "compare", "correlate"} <= set(params)
    for name, p in params.items():
        assert list(p.type.choices) == list(TIES) and p.default == options.DEFAULT_TIES, name
    for fn in (evaluation.evaluate, interval.plan, ecosystem_outputs.interval_name):
        assert _default(fn, "ties") == options.DEFAULT_TIES, fn.__qualname__
    assert evaluation.Evaluation.__dataclass_fields__["ties"].default == options.DEFAULT_TIES


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
