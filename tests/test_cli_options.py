"""Tests of irscales.cli._options: the options shared by the irscales subcommands."""

from __future__ import annotations

import inspect

import click

from irscales.cli._options import reading, reading_options, scale_options
from irscales.data.collection import Collection


def test_reading_options_are_those_of_from_trec():
    @click.command()
    @reading_options
    @scale_options
    def cmd(**kw):
        pass

    names = [p.name for p in cmd.params]
    assert names == ["negative", "on_missing_topic", "on_no_relevant", "on_uneven_topics", "on_repeated_lines",
                     "score_precision", "build_scales", "cache", "progress"]
    params = inspect.signature(Collection.from_trec).parameters
    for p in cmd.params[:6]:
        assert params[p.name].default == p.default, p.name


def test_reading_pops_the_reading_options():
    kw = {"negative": "zero", "on_missing_topic": "error", "on_no_relevant": "keep", "on_uneven_topics": "pad",
          "on_repeated_lines": "drop", "score_precision": "float64", "cache": True}
    assert reading(kw) == {"negative": "zero", "on_missing_topic": "error", "on_no_relevant": "keep",
                           "on_uneven_topics": "pad", "on_repeated_lines": "drop", "score_precision": "float64"}
    assert kw == {"cache": True}
