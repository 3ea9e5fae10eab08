"""Renderings of a :class:`irscales.comparison.ComparisonTable`: its significance markers, cells, Markdown,
LaTeX (a table that compiles and fits the page) and the wide CSV (one row per system).

Markers: up to :data:`LETTERS_UP_TO` systems each has a letter (a … z, unambiguous when written together,
``bcd``); past it each has its number 1 … S and a cell lists numbers with ranges (``1,3–5``).

LaTeX: a leading ``%`` comment names the packages the table needs, all in a stock TeX (Debian's
texlive-latex-base and texlive-latex-recommended: booktabs, graphicx, longtable, array). Up to :data:`FLOAT_UP_TO`
systems it is a ``table`` float whose tabular is scaled down to ``\\linewidth`` only when wider (graphicx's
``\\resizebox``); past it a ``longtable`` whose columns share ``\\linewidth`` (``array``), whose cells may break
after the mean and between groups of markers, and which breaks across pages (no overfull box at 143 runs). The
best mean of each column is bold; the caption is the legend, one sentence per line of it, with its formulas as
math (φ, (φ − 1)/(K − 1), ×).
"""

from __future__ import annotations

import re
import string
from typing import Any, Callable

import pandas as pd

from irscales._formatting import column_numbers
from irscales._latex import latex_breakable, latex_sentences, latex_text
from irscales.options import LETTERS_UP_TO  # systems with letters up to this many, numbers beyond

#: An :class:`irscales.comparison.ComparisonTable` (not imported here: that module imports this one).
ComparisonTable = Any

__all__ = ["LETTERS_UP_TO", "FLOAT_UP_TO", "SCALES", "markers", "join_marks", "columns", "cells", "markdown", "latex", "wide_frame",
           "text"]

#: LaTeX: a ``table`` float up to this many systems, a ``longtable`` beyond.
FLOAT_UP_TO = 30
SCALES = ("original", "interval")


def markers(n: int) -> tuple[str, ...]:
    """One marker per system in the order given: a … z up to :data:`LETTERS_UP_TO` systems, else 1 … n."""
    if n <= LETTERS_UP_TO:
        return tuple(string.ascii_lowercase[:n])
    return tuple(str(k) for k in range(1, n + 1))


def join_marks(marks: tuple[str, ...], which: list[int]) -> str:
    """The markers of systems ``which`` as one string: letters side by side, numbers separated by commas."""
    sep = "," if len(marks) > LETTERS_UP_TO else ""
    return sep.join(marks[k] for k in sorted(which))


def _ranges(numbers: str) -> list[str]:
    """``"1,3,4,5"`` → ``["1", "3–5"]`` (runs of three or more consecutive numbers as a range)."""
    xs = [int(x) for x in numbers.split(",") if x]
    out, k = [], 0
    while k < len(xs):
        e = k
        while e + 1 < len(xs) and xs[e + 1] == xs[e] + 1:
            e += 1
        out += [f"{xs[k]}–{xs[e]}"] if e - k >= 2 else [str(x) for x in xs[k:e + 1]]
        k = e + 1
    return out


def _groups(better: str, numbered: bool) -> list[str]:
    """The markers of a cell as printable groups (one string of letters, or numbers and ranges)."""
    if not better:
        return []
    return _ranges(better) if numbered else [better]


# ----------------------------------------------------------------------------------------- escaping


def escape_markdown(s: str) -> str:
    """A name safe in a Markdown table cell: HTML's ``& < >`` as entities, ``|`` and ``\\`` escaped, line
    breaks as ``<br>`` (a name never splits its row or turns into a tag)."""
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = s.replace("\\", "\\\\").replace("|", r"\|")
    return re.sub(r"\r\n|\r|\n", "<br>", s)


def escape_text(s: str) -> str:
    """A name on one line of the plain-text table (a line break shown as ``\\n``)."""
    return re.sub(r"\r\n|\r|\n", r"\\n", s)


# ------------------------------------------------------------------------------------------- cells


def columns(t: ComparisonTable) -> list[tuple[str, str]]:
    """(measure, scale) of every value column, in order (the table's and the figure's)."""
    have = set(zip(t.frame["measure"], t.frame["scale"]))
    return [(m, s) for m in t.measures for s in SCALES if (m, s) in have]


def _best(t: ComparisonTable) -> dict[tuple[str, str], float]:
    """The largest mean of every (measure, scale) column."""
    return t.frame.groupby(["measure", "scale"])["mean"].max().to_dict()


def cells(t: ComparisonTable, style: str = "text") -> pd.DataFrame:
    """One row per system (its marker, its name), one column per measure and scale (``M``, ``M (interval)``);
    ``style``: ``text``, ``markdown`` or ``latex``."""
    esc = {"text": escape_text, "markdown": escape_markdown, "latex": latex_text}[style]
    f = t.frame.set_index(["system", "measure", "scale"])
    best = _best(t)
    numbered = len(t.systems) > LETTERS_UP_TO
    shown = column_formats(t)
    rows = []
    for mark, s in zip(t.letters, t.systems):
        row = {"": mark, "system": esc(s)}
        for m, scale in columns(t):
            r = f.loc[(s, m, scale)]
            col = m if scale == "original" else f"{m} (interval)"
            row[esc(col)] = _cell(r, style, r["mean"] == best[(m, scale)], numbered, shown[(m, scale)])
        rows.append(row)
    return pd.DataFrame(rows)


def column_formats(t: ComparisonTable) -> dict[tuple[str, str], Callable[[float], str]]:
    """How each (measure, scale) column prints its means: 4 decimals, more where distinct means would print alike,
    scientific notation where they are too small for a fixed point (:func:`irscales._formatting.column_numbers`)."""
    return {k: column_numbers(g) for k, g in t.frame.groupby(["measure", "scale"])["mean"]}


def _cell(r: pd.Series, style: str, best: bool, numbered: bool, number: Callable[[float], str]) -> str:
    mean = number(r["mean"])
    groups, mark, differs = _groups(r["better_than"], numbered), r["baseline_mark"], bool(r["differs"])
    open_ = _groups(r.get("undecided", ""), numbered)  # undecided on bracketed values (issue 51): ?b
    if style == "latex":
        out = rf"\textbf{{{mean}}}" if best else mean
        sup = [latex_text(g) for g in groups]
        sup = [g + ("," if k < len(sup) - 1 else "") for k, g in enumerate(sup)]
        sup += [mark.replace("†", r"$\dagger$").replace("‡", r"$\ddagger$")] if mark else []
        sup += ["?" + latex_text(",".join(open_))] if open_ else []
        out += "".join(rf"\allowbreak{{}}\textsuperscript{{{g}}}" for g in sup)  # a narrow cell breaks after the mean
        return out + (r" $\neq$" if differs else "")
    if style == "markdown":
        sup = ",".join(groups) + mark
        out = (f"**{mean}**" if best else mean) + (f"<sup>{sup}</sup>" if sup else "")
        out += f"<sup>?{','.join(open_)}</sup>" if open_ else ""
        return out + (" ≠" if differs else "")
    out = mean + (f" {','.join(groups)}" if groups else "") + mark + (f" ?{','.join(open_)}" if open_ else "")
    return out + (" ≠" if differs else "")


# ------------------------------------------------------------------------------------------ formats


def text(t: ComparisonTable) -> str:
    return cells(t, "text").to_string(index=False) + "\n\n" + t.legend


def markdown(t: ComparisonTable) -> str:
    c = cells(t, "markdown")
    head = "| " + " | ".join(c.columns) + " |"
    rule = "|" + "|".join(":--" if i < 2 else "--:" for i in range(len(c.columns))) + "|"
    body = ["| " + " | ".join(str(v) for v in r) + " |" for r in c.itertuples(index=False)]
    legend = "\n".join(f"{escape_markdown(line)}  " for line in t.legend_for(bold_shown=True).splitlines())
    return "\n".join([head, rule, *body, "", legend]) + "\n"


def latex_caption(t: ComparisonTable) -> str:
    """The legend as a LaTeX caption, its formulas in math."""
    cap = latex_sentences(t.legend_for(bold_shown=True))  # one sentence per note, AP $\times$ RB
    cap = cap.replace("(phi - 1)/(K - 1)", r"$(\varphi - 1)/(K - 1)$")
    cap = re.sub(r"\bphi\b", r"$\\varphi$", cap)
    cap = re.sub(r"\b(\d+)\\\^\{\}(\d+)\b", r"$\1^{\2}$", cap)  # 2^10 (escaped as 2\^{}10) as math
    return re.sub(r"alpha = ([0-9.eE+-]*[0-9])", r"$\\alpha = \1$", cap)


def _latex_head(t: ComparisonTable, cols: list[tuple[str, str]], first: int) -> list[str]:
    """The two header rows: each measure over its columns, then ``orig.`` / ``int.`` under it."""
    top, rules, sub, k = ["", ""], [], [r"", "System"], first
    for m in t.measures:
        n = sum(1 for c in cols if c[0] == m)
        if not n:
            continue
        top.append(rf"\multicolumn{{{n}}}{{c}}{{{latex_text(m)}}}")
        rules.append(rf"\cmidrule(lr){{{k}-{k + n - 1}}}")
        sub += ["orig." if s == "original" else "int." for mm, s in cols if mm == m]
        k += n
    return [" & ".join(top) + r" \\", "".join(rules), " & ".join(sub) + r" \\"]


def latex(t: ComparisonTable, label: str = "tab:irscales-comparison") -> str:
    """The table in LaTeX (see the module docstring), with ``\\label{label}``."""
    c = cells(t, "latex")
    cols = columns(t)
    n = len(cols)
    head = _latex_head(t, cols, 3)
    caption = latex_caption(t)
    long = len(t.systems) > FLOAT_UP_TO
    names = [latex_breakable(s) for s in t.systems] if long else list(c["system"])
    body = [" & ".join([str(r[0]), names[k], *(str(v) for v in r[2:])]) + r" \\"
            for k, r in enumerate(c.itertuples(index=False))]
    if not long:  # scaled down only when wider than the line (box 0: LaTeX's scratch box, inside the float's group)
        return "\n".join([
            r"% irscales comparison table: requires \usepackage{booktabs} and \usepackage{graphicx}",
            r"\begin{table}", r"\centering", rf"\caption{{{caption}}}", rf"\label{{{label}}}", r"\smallskip",
            r"\setlength{\tabcolsep}{3pt}", rf"\sbox0{{\begin{{tabular}}{{rl{'r' * n}}}", r"\toprule",
            *head, r"\midrule", *body, r"\bottomrule", r"\end{tabular}}%",
            r"\ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\usebox0}\else\usebox0\fi", r"\end{table}"]) + "\n"
    # value columns: 72 % of the free width, at least the widest bold mean (bold digits are 0.575 em; its markers may
    # wrap below it); the name column takes the rest (two lengths, allocated once, set inside the table's group)
    shown = column_formats(t)
    digits = max(len(shown[k](x)) for k, g in t.frame.groupby(["measure", "scale"])["mean"] for x in g)
    need = f"{0.575 * digits + 0.2:.2f}em"
    free = rf"\dimexpr\linewidth-2.2em-{2 * n + 2}\tabcolsep\relax"
    share = rf"\dimexpr{free}*72/{100 * n}\relax"
    spec = (r"@{}>{\raggedleft\arraybackslash}p{2.2em}>{\raggedright\arraybackslash}p{\irscalesname}"
            rf"*{{{n}}}{{>{{\raggedleft\arraybackslash}}p{{\irscalesvalue}}}}@{{}}")
    width = n + 2
    return "\n".join([
        r"% irscales comparison table: requires \usepackage{booktabs}, \usepackage{longtable} and \usepackage{array}",
        r"\begingroup", r"\footnotesize", r"\setlength{\tabcolsep}{3pt}", r"\setlength{\LTcapwidth}{\linewidth}",
        r"\ifdefined\irscalesvalue\else\newlength\irscalesvalue\newlength\irscalesname\fi",
        rf"\def\irscaleswidths{{\setlength{{\irscalesvalue}}{{{share}}}\ifdim\irscalesvalue<{need}"
        rf"\setlength{{\irscalesvalue}}{{{need}}}\fi"
        rf"\setlength{{\irscalesname}}{{\dimexpr{free}-{n}\irscalesvalue\relax}}}}",
        r"\irscaleswidths\ifdim\irscalesname<7em\scriptsize\setlength{\tabcolsep}{1.5pt}\irscaleswidths\fi"
        " % smaller type and gaps where the names would get too narrow",
        rf"\begin{{longtable}}{{{spec}}}", rf"\caption{{{caption}}}\label{{{label}}} \\", r"\toprule", *head,
        r"\midrule", r"\endfirsthead",
        rf"\multicolumn{{{width}}}{{@{{}}l}}{{Table~\thetable{{}} (continued)}} \\", r"\toprule", *head,
        r"\midrule", r"\endhead",
        r"\midrule", rf"\multicolumn{{{width}}}{{r@{{}}}}{{(continued on the next page)}} \\", r"\endfoot",
        r"\bottomrule", r"\endlastfoot", *body, r"\end{longtable}", r"\endgroup"]) + "\n"


def wide_frame(t: ComparisonTable) -> pd.DataFrame:
    """One row per system: its marker and name, then per measure and scale the mean (every digit), the
    markers of the systems it is significantly better than (and, on bracketed interval values, those it is
    better than for some values inside the brackets only: ``undecided``), its baseline mark (with a baseline), and per
    measure whether the conclusions differ between the scales."""
    f = t.frame.set_index(["system", "measure", "scale"])
    rows = []
    for mark, s in zip(t.letters, t.systems):
        row = {"marker": mark, "system": s}
        for m in t.measures:
            present = [sc for sc in SCALES if (s, m, sc) in f.index]
            for scale in present:
                r = f.loc[(s, m, scale)]
                col = m if scale == "original" else f"{m} (interval)"
                row[col] = r["mean"]
                row[f"{col} better_than"] = r["better_than"]
                if scale == "interval" and m in t.bracketed:
                    row[f"{col} undecided"] = r["undecided"]
                if t.baseline is not None:
                    row[f"{col} baseline_mark"] = r["baseline_mark"]
            if "interval" in present:
                row[f"{m} differs"] = bool(f.loc[(s, m, "original"), "differs"])
        rows.append(row)
    return pd.DataFrame(rows)
