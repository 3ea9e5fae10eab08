"""Output of the ``irscales`` command line: tables and files, their legends and exact ranked values (the
guard that keeps ``-o`` from overwriting an input is :func:`irscales.options.check_output_path`)."""

from __future__ import annotations

import csv
import io
import math
from decimal import Decimal, localcontext
from fractions import Fraction

from typing import TYPE_CHECKING

import click
import numpy as np

if TYPE_CHECKING:  # pandas is loaded by the commands that make frames, not by --help (issue 49)
    import pandas as pd

from irscales._atomic import write_atomic
from irscales.data._judged import JUDGED_CONVENTION, judged_at
from irscales._formatting import column_format, significant
from irscales._latex import latex_sentences, latex_text

__all__ = ["emit", "emit_columns", "delimited", "render", "write", "exact_mean", "legend_of", "n_line", "scales_line",
           "judged_line", "big_count"]


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


def render(frame: pd.DataFrame, fmt: str, legend: str = "") -> tuple[str, str]:
    """(text, legend for stderr): the frame in ``fmt`` with its legend — under the table (``table``,
    ``markdown``), as the caption (``latex``), or apart for stderr (``csv``, ``tsv``: data only)."""
    import pandas as pd  # loaded with the frame already

    if fmt in ("csv", "tsv"):
        # shortest round-trip digits: distinct values stay distinct and equal ones equal (ties matter)
        return frame.to_csv(index=False, sep="," if fmt == "csv" else "\t"), legend
    shown = {c: column_format(frame[c]) for c in frame.columns if pd.api.types.is_float_dtype(frame[c])}
    if fmt == "table":
        text = frame.to_string(index=False, formatters=shown)  # distinct values never print alike
        return text + ("\n\n" + legend if legend else "") + "\n", ""
    cells = [[_cell(v, shown.get(c, significant)) for c, v in zip(frame.columns, row)]
             for row in frame.itertuples(index=False)]
    if fmt == "markdown":
        esc = (lambda x: str(x).replace("|", r"\|"))
        lines = ["| " + " | ".join(esc(c) for c in frame.columns) + " |",
                 "|" + "|".join("--:" if pd.api.types.is_numeric_dtype(frame[c]) else ":--" for c in frame.columns) + "|"]
        lines += ["| " + " | ".join(esc(c) for c in row) + " |" for row in cells]
        if legend:
            lines += [""] + [f"{ln}  " for ln in legend.splitlines()]
        return "\n".join(lines) + "\n", ""
    if fmt == "latex":
        spec = "".join("r" if pd.api.types.is_numeric_dtype(frame[c]) else "l" for c in frame.columns)
        lines = [r"% requires \usepackage{booktabs}", r"\begin{table}", r"\centering",
                 rf"\begin{{tabular}}{{{spec}}}", r"\toprule",
                 " & ".join(latex_text(str(c)) for c in frame.columns) + r" \\", r"\midrule"]
        lines += [" & ".join(latex_text(c) for c in row) + r" \\" for row in cells]
        lines += [r"\bottomrule", r"\end{tabular}"]
        if legend:
            lines.append(rf"\caption{{{latex_sentences(legend)}}}")
        lines.append(r"\end{table}")
        return "\n".join(lines) + "\n", ""
    raise ValueError(f"unknown format {fmt!r}")


def _cell(v, number=significant) -> str:
    if isinstance(v, (bool, np.bool_)):  # a decision reads as a word, not as Python's True / False
        return "yes" if v else "no"
    if isinstance(v, float):
        return "" if v != v else number(v)
    return str(v)


def delimited(columns: dict[str, np.ndarray], sep: str) -> str:
    """Columns as pandas' ``DataFrame(columns).to_csv(index=False, sep=sep)`` writes them, byte for byte, without
    pandas (issue 49; ``tests/test_cli_output.py`` compares the two): a float column as numpy's ``astype(str)``
    (the shortest digits that read back to the same double: distinct values stay distinct, equal ones equal),
    any other value as ``str``, a missing one (NaN, None) empty, and the csv module's minimal quoting."""
    cells = []
    for col in columns.values():
        if col.dtype.kind == "f":
            text = col.astype(str).astype(object)
            text[np.isnan(col)] = ""
        else:
            text = ["" if x is None or (isinstance(x, float) and x != x) else str(x) for x in col.tolist()]
        cells.append(text)
    out = io.StringIO()
    rows = csv.writer(out, delimiter=sep, lineterminator="\n")
    rows.writerow(columns)
    rows.writerows(zip(*cells))
    return out.getvalue()


def emit_columns(columns: dict[str, np.ndarray], fmt: str, output: str | None, legend: str = "",
                 objects: tuple[str, ...] = ()) -> None:
    """:func:`emit` of a table given as columns: csv and tsv written by :func:`delimited` (no pandas), the other
    formats from a frame of them (``objects``: columns kept as Python objects, not converted to a dtype)."""
    if fmt not in ("csv", "tsv"):
        import pandas as pd  # the other formats are rendered from a frame

        emit(pd.DataFrame(columns).astype({c: object for c in objects if c in columns}), fmt, output, legend)
        return
    write(delimited(columns, "," if fmt == "csv" else "\t"), output)
    for line in legend.splitlines():
        click.echo(f"# {line}", err=True)


def emit(frame: pd.DataFrame, fmt: str, output: str | None, legend: str = "") -> None:
    """Write the frame (stdout or ``output``) in ``fmt`` with its legend (:func:`render`); a legend that
    does not belong in the data goes to stderr, after the table, so the two never interleave."""
    text, aside = render(frame, fmt, legend)
    write(text, output)
    if aside:
        for line in aside.splitlines():
            click.echo(f"# {line}", err=True)


def write(text: str, output: str | None) -> None:
    """``text`` to stdout, or to the file ``output`` whole or not at all (an old file is never truncated)."""
    if output:
        write_atomic(output, text if text.endswith("\n") else text + "\n")
    else:
        click.echo(text.rstrip("\n"))


def legend_of(*lines: str) -> str:
    """A legend: its non-empty lines."""
    return "\n".join(x for x in lines if x)


def n_line(ev) -> str:
    """The run length N of the measures, as every name carries it (issue 48: ``AP@10``, ``nDCG@20``)."""
    ns = sorted(set(ev.cutoffs.values())) or [ev.depth]
    if len(ns) == 1:
        return f"run length N = {ns[0]}"
    return (f"run lengths N = {', '.join(map(str, ns))}: each measure at the N its name carries (runs read to "
            f"{ev.depth} ranks)")


def scales_line(ev) -> str:
    """Per measure: K, the route, what its scale is over and, where the interval value is an affine image of
    the measure, that it is (the column is kept, so every measure has the same columns)."""
    parts = []
    for _, row in ev.scale_table().iterrows():
        extra = [row["bracket"] or row["route"], row["caveat"],
                 f"over {row['scale_over']}" if row["scale_over"] else "",
                 f"{row['measure']} (interval) {row['affine']}" if row["affine"] else ""]
        parts.append(f"{row['measure']}: K = {big_count(int(row['K']))} ({', '.join(x for x in extra if x)})")
    return "scales: " + "; ".join(parts)


def judged_line(ev) -> str:
    """The legend's judged@N: its range over the systems (the warning names those below the threshold)."""
    j = judged_at(ev.collection, ev.depth).T.mean(axis=0)  # Evaluation.judged() without its Series (pandas)
    lo, hi = int(np.argmin(j)), int(np.argmax(j))  # the first of equal values, as idxmin / idxmax
    return (f"judged@{ev.depth}: from {j[lo]:.3f} ({ev.systems[lo]}) to {j[hi]:.3f} ({ev.systems[hi]}), the "
            "fraction of a system's top "
            f"{ev.depth} documents that are in the qrels, mean over topics ({JUDGED_CONVENTION}); "
            f"{int((j < ev.judged_threshold).sum())} of {len(j)} systems below {ev.judged_threshold:g}")


def big_count(n: int, power: str = "") -> str:
    """A count for a table or legend: every digit up to 10^18, beyond it its power or its leading digits and
    length (2^100000 has 30,103 digits; printing them costs seconds and says nothing)."""
    if n < 10**18:
        return f"{n:,}"
    e = n.bit_length() - 53
    lg = math.log10(n >> e) + e * math.log10(2)  # log10(n) in double precision, without str(n)
    digits = int(lg) + 1
    return f"{power} (a {digits:,}-digit number)" if power else f"{10 ** (lg - int(lg)):.3f}e{digits - 1} ({digits:,} digits)"
