"""Output of the ``irscales`` command line: tables and files, exact ranked values, and the guard that keeps
``-o`` from overwriting an input."""

from __future__ import annotations

import os
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import click
import numpy as np
import pandas as pd

__all__ = ["emit", "exact_mean", "check_output"]


def exact_mean(values: np.ndarray):
    """The mean over topics of exact ranked values (integers or halves), shown so that distinct means
    stay distinct: an int when it is one, else a decimal with enough digits (two means over T topics
    differ by at least 1/(2T)); NaN for a column without ranked values."""
    if values.dtype.kind == "f" and np.isnan(values).all():
        return float("nan")
    mean = sum(Fraction(x) for x in values.tolist()) / len(values)
    if mean.denominator == 1:
        return int(mean)
    digits = len(str(abs(mean.numerator // mean.denominator))) + len(str(2 * len(values))) + 1
    with localcontext() as ctx:
        ctx.prec = digits
        return str(Decimal(mean.numerator) / Decimal(mean.denominator))


def check_output(output: str | None, inputs) -> None:
    """Refuse ``-o`` naming a file the command reads (the qrels, a run, a run in a folder given):
    writing the table there would destroy the input before anyone noticed."""
    if not output or not Path(output).exists():
        return
    for given in inputs:
        p = Path(given)
        for f in (sorted(p.iterdir()) if p.is_dir() else [p]):
            try:
                same = os.path.samefile(output, f)
            except OSError:
                continue
            if same:
                raise click.BadParameter(f"{output} is an input of this command ({f}); choose another file",
                                         param_hint="'-o' / '--output'")


def emit(frame: pd.DataFrame, fmt: str, output: str | None) -> None:
    if fmt == "table":
        text = frame.to_string(index=False, float_format=lambda x: f"{x:.6g}")
    else:
        # shortest round-trip digits: distinct values stay distinct and equal ones equal (ties matter)
        text = frame.to_csv(index=False, sep="," if fmt == "csv" else "\t")
    if output:
        Path(output).write_text(text if text.endswith("\n") else text + "\n")
    else:
        click.echo(text.rstrip("\n"))
