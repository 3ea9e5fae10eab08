"""Figures of FFF21 Table 2 at the cut-offs (notebook 09, :mod:`irscales.papers.fff21.cutoffs`): where real runs
sit on the interval scale at large N, and how the ranking of systems changes.

* :func:`plot_values` — interval value (log10, the scale's lower tail) against the measure's value of every
  (system, topic) run, one panel per (N, measure), one colour per N (runs at interval value 0 counted, not drawn);
* :func:`plot_ranks` — each system's rank by M against its rank by M's interval version, one panel per measure,
  one colour per N (on the diagonal: the transform keeps the system's place).

Titles and file names say whether the runs are real or simulated (:attr:`Source.label`).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

from irscales.figures import write_figure
from irscales.papers.fff21.cutoffs import Cell, system_ranks
from irscales.options import UNQ

__all__ = ["plot_values", "plot_ranks", "save", "shown"]


def shown(cells: Sequence[Cell]) -> list[Cell]:
    """The computed cells a figure shows: per (measure, N) the ``unq`` cell, else the other tie strategy's."""
    out, seen = [], set()
    for c in sorted((c for c in cells if c.means is not None), key=lambda c: c.ties != UNQ):
        if (c.measure, c.N) not in seen:
            seen.add((c.measure, c.N))
            out.append(c)
    order = {}
    for c in cells:
        order.setdefault(c.measure, len(order))
    return sorted(out, key=lambda c: (c.N, order[c.measure]))


def _grid(n: int, cols: int, size: float = 2.6):
    rows = max(1, math.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(size * cols, size * rows), squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def plot_values(cells: Sequence[Cell], label: str, cols: int = 6):
    """Interval value (log10) against the measure's value, one panel per computed (N, measure), by N."""
    cs = shown(cells)
    fig, axes = _grid(len(cs), min(cols, len(cs)), size=2.5)
    for ax, c in zip(axes, cs):
        x, y = c.value.ravel(), c.log10.ravel()
        ok = np.isfinite(y)
        ax.scatter(x[ok], y[ok], s=3, alpha=0.35, lw=0, color=f"C{sorted({d.N for d in cs}).index(c.N)}")
        ax.text(0.02, 0.98, f"{(~ok).sum()} at 0" + ("" if c.exact else "\nbracketed"), fontsize=6, va="top",
                transform=ax.transAxes)
        ax.set_title(f"{c.measure}, N = {c.N}" + ("" if c.ties == UNQ else f" ({c.ties})"), fontsize=8)
        ax.set_xlabel(c.measure, fontsize=8)
        ax.set_ylabel("log10 interval value", fontsize=7)
        ax.tick_params(labelsize=6)
    fig.suptitle(f"Interval value vs the measure's value of every (system, topic), {label}", fontsize=10)
    fig.tight_layout()
    return fig


def plot_ranks(cells: Sequence[Cell], label: str):
    """Rank of each system by M (x) and by its interval version (y), one panel per measure, one colour per N."""
    cs = shown(cells)
    measures = list(dict.fromkeys(c.measure for c in cs))
    Ns = sorted({c.N for c in cs})
    fig, axes = _grid(len(measures), min(4, len(measures)))
    for ax, m in zip(axes, measures):
        for k, N in enumerate(Ns):
            c = next((c for c in cs if c.N == N and c.measure == m), None)
            if c is None:
                continue
            ax.scatter(system_ranks(c.means), system_ranks(c.unit_means), s=8, alpha=0.6, color=f"C{k}",
                       label=f"N = {N}{'' if c.ties == 'unq' else f' ({c.ties})'}: τ = {c.tau:.3f}")
        top = max(len(c.means) for c in cs)
        ax.plot([1, top], [1, top], color="0.6", lw=0.8)
        ax.set_title(m, fontsize=9)
        ax.set_xlabel("rank by M", fontsize=8)
        ax.set_ylabel("rank by interval version", fontsize=8)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=6, loc="upper left")
    fig.suptitle(f"System ranks, measure vs interval version, {label}", fontsize=10)
    fig.tight_layout()
    return fig


def save(fig, name: str, tag: str, directory: Path) -> list[str]:
    """Write ``fig`` as ``<directory>/<name>_<tag>.png``, close it and return ``<folder>/<file>`` (no machine path
    in a notebook's output)."""
    return [f"{directory.name}/{p.name}" for p in write_figure(fig, directory, f"{name}_{tag}", formats=("png",))]
