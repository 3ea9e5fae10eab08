"""irscales.options is the one home of the reading options: every reader's signature default, every flag of
every command that reads runs and every notebook that takes runs agrees with it (issue 36)."""

from __future__ import annotations

import inspect
import json

import click
import pytest

from irscales import evaluation, options
from irscales.cli import main
from irscales.cli_messages import as_flags
from irscales.data import frames, trec, trec_arrays
from irscales.data.collection import Collection
from irscales.paths import repo_root

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
