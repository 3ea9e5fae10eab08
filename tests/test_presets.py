"""Tests of irscales.data.presets: one load_preset for the simulated presets and the public grid."""

from __future__ import annotations

import pytest

from irscales.data import gop
from irscales.data.presets import GOP_PRESETS, PRESET_NAMES, SIM_PRESETS, load_preset


def test_preset_names():
    assert SIM_PRESETS == ("sim-t08", "sim-t26", "sim-t27", "sim-r04", "sim-gop")
    assert GOP_PRESETS == ("gop-cranfield", "gop-cisi", "gop-cacm", "gop-combined")
    assert PRESET_NAMES == SIM_PRESETS + GOP_PRESETS


@pytest.mark.data
def test_unknown_preset():
    with pytest.raises(KeyError, match="unknown preset 'sim-x'"):
        load_preset("sim-x")
    with pytest.raises(KeyError, match="unknown preset 'gop-trec'; choose one of gop-cranfield"):
        load_preset("gop-trec")


@pytest.mark.data
def test_gop_names_load_the_public_grid(monkeypatch):
    calls = []
    monkeypatch.setattr(gop, "load", lambda name, depth: calls.append(("load", name, depth)) or "one")
    monkeypatch.setattr(gop, "load_combined", lambda depth, seed: calls.append(("combined", depth, seed)) or "all")
    assert load_preset("gop-cisi", depth=20, seed=4) == "one"
    assert load_preset("gop-combined", depth=30, seed=5) == "all"
    assert calls == [("load", "cisi", 20), ("combined", 30, 5)]
    with pytest.raises(ValueError, match="qrels= is for the simulated presets"):
        load_preset("gop-cacm", qrels="qrels.txt")


def test_simulated_presets_say_so():
    c = load_preset("sim-t08", depth=5, seed=0)
    assert c.is_simulated and c.data_label == "simulated"
    assert c.provenance == "simulated: sim-t08 seed=0 depth=5"
