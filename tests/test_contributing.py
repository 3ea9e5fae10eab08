"""CONTRIBUTING.md is checked (issue 50, item 5): its layer table against the import graph, and its worked examples —
a toy measure of an existing form and a toy form — each in one file, found by the parser, the command line's list,
``evaluate(..., ranked=True)`` and the ir_measures provider."""

from __future__ import annotations

import importlib.util
import re
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from irscales import enumeration as E
from irscales import measures as M
from irscales.enumeration import forms
from irscales.enumeration.ties import TIES, rank_values

from test_layout import MODULES, _name, _top_level_imports

ROOT = Path(__file__).resolve().parents[1]
GUIDE = (ROOT / "CONTRIBUTING.md").read_text()


def _layers() -> dict[str, int]:
    """Module (or package) prefix → layer number, from the guide's table."""
    out = {}
    for number, cells in re.findall(r"^\| (\d+) [^|]*\| ([^|]*) \|", GUIDE, flags=re.M):
        for name in re.findall(r"`([\w.]+)`", cells):
            out["irscales" if name == "__init__" else f"irscales.{name}"] = int(number)
    return out


def _layer(module: str, layers: dict[str, int]) -> int | None:
    best = max((p for p in layers if module == p or (p != "irscales" and module.startswith(p + "."))),
               key=len, default=None)
    return layers[best] if best else None


def test_the_guides_layers_place_every_module_and_no_import_goes_upwards():
    layers = _layers()
    assert len(set(layers.values())) >= 9, layers
    unplaced = sorted(m for m in (_name(p) for p in MODULES) if _layer(m, layers) is None)
    assert not unplaced, f"CONTRIBUTING.md's layer table places no row for {unplaced}: add each to its layer"
    upward = []
    for path in MODULES:
        m = _name(path)
        for d in sorted(_top_level_imports(path)):
            if (_layer(d, layers) or 0) > _layer(m, layers):
                upward.append(f"{m} (layer {_layer(m, layers)}) imports {d} (layer {_layer(d, layers)})")
    assert not upward, "\n".join(upward)


def _example(name: str) -> str:
    """The guide's code block that starts with ``# <name>``."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE, flags=re.S)
    found = [b for b in blocks if b.startswith(f"# {name}\n")]
    assert len(found) == 1, f"CONTRIBUTING.md has {len(found)} code blocks starting with '# {name}'"
    return found[0]


@pytest.fixture
def example(tmp_path):
    """Import a worked example of the guide as a module of its own file; unregister what it registered."""
    loaded = []

    def load(name: str):
        path = tmp_path / name
        path.write_text(_example(name))
        spec = importlib.util.spec_from_file_location(f"guide_{path.stem}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        before = (set(M.REGISTRY), set(forms.FORMS))
        spec.loader.exec_module(mod)
        loaded.append((spec.name, set(M.REGISTRY) - before[0], set(forms.FORMS) - before[1]))
        return mod

    yield load
    for module, measures, new_forms in loaded:
        for name in measures:
            M.unregister(M.REGISTRY[name])
        for name in new_forms:
            del forms.FORMS[name]
        sys.modules.pop(module, None)


QRELS = {"1": {"a": 1, "b": 0, "c": 2, "e": 1}, "2": {"a": 0, "d": 1}, "3": {"z": 1}}
RUNS = {"x": {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"d": 2.0, "a": 1.0}, "3": {"q": 1.0}},
        "y": {"1": {"b": 3.0, "c": 2.0, "e": 1.0}, "2": {"a": 2.0, "q": 1.0}, "3": {"a": 1.0}}}


def _evaluate(measures: str, depth: int, **kw):
    from irscales import evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # judged@N of a toy pool
        return evaluate(QRELS, RUNS, measures, depth=depth, ranked=True, cache=False, **kw)


def _found_everywhere(name: str, depth: int) -> None:
    """``name`` reads, is in the command line's list, and has interval values in evaluate and in ir_measures."""
    import ir_measures

    from irscales import interval_measure
    from irscales.cli import main

    assert M.parse(name) == M.REGISTRY[name]()
    assert name in M.measure_names()
    shown = CliRunner().invoke(main, ["scores", "--help"], terminal_width=400)
    assert shown.exit_code == 0 and f" {name} " in shown.output
    ev = _evaluate(name, depth)
    assert ev.scale_table().set_index("measure").loc[f"{name}@{depth}", "exact"]  # every label carries its N
    im = interval_measure(name, depth=depth)
    qrels = [ir_measures.Qrel(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()]
    run = [ir_measures.ScoredDoc(q, d, s) for q, docs in RUNS["x"].items() for d, s in docs.items()]
    got = {m.query_id: m.value for m in ir_measures.iter_calc([im], qrels, run)}
    assert got == {q: float(v) for q, v in ev.interval(name)["x"].items()}


def test_adding_a_measure_is_one_class(example):
    example("toy_measure.py")
    _found_everywhere("Hits", 5)
    ev = _evaluate("Hits,P", 5, phi=True)
    assert ev.interval("Hits").equals(ev.interval("P"))  # φ = hits + 1 over N + 1 values: P's interval value
    assert ev.scale_table().set_index("measure").loc["Hits@5", "route"] == "count"


def test_adding_a_form_is_one_module_and_its_phi_is_the_brute_force_rank(example):
    mod = example("toy_form.py")
    _found_everywhere("TopHit", 4)
    m = mod.TopHit()
    for N in (1, 2, 5):
        rel = E.runs_from_ids(np.arange(2**N), N).astype(np.int64)
        values = m.exact(rel).tolist()
        for t in TIES:
            want = [Fraction(x) for x in rank_values(values, t).tolist()]
            assert [Fraction(x) for x in E.ranked_runs(m, rel, t).tolist()] == want, (N, t)
    assert E.choose_route(m, 10**6).kind == "count"
    ev = _evaluate("TopHit", 4, ties="max", phi=True)
    assert ev.interval("TopHit", raw=True)["x"].tolist() == [16, 16, 8]  # rank 1 relevant on topics 1 and 2
