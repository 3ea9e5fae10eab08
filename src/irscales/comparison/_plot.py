"""The picture of a :class:`irscales.comparison.ComparisonTable`: for every measure, two panels (original and
interval scale) with each system's mean and its 95% t confidence interval, systems in the table's order
from the top; a system whose conclusions differ between the scales (≠) is drawn in red, its name marked
``≠``. On bracketed interval values a grey bar behind each mean is its exact range over every value inside the
brackets. The figure grows with the number of systems (readable at 129)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from irscales.comparison._render import columns
from irscales.figures import styled, write_figure

__all__ = ["plot"]

#: An :class:`irscales.comparison.ComparisonTable` (not imported here: that module imports this one).
ComparisonTable = Any
_SCALE_WORDS = {"original": "", "interval": " (interval)"}


def plot(t: ComparisonTable, path: str | Path | None = None):
    """The figure (matplotlib); written to ``path`` when given (its suffix: png, pdf or svg)."""
    import matplotlib.pyplot as plt

    cols = columns(t)
    n = len(t.systems)
    y = np.arange(n)[::-1]
    label_size = 8 if n <= 40 else 5.5
    with styled():
        fig, axes = plt.subplots(1, len(cols), sharey=True, squeeze=False,
                                 figsize=(max(6.0, 2.3 * len(cols)), max(3.0, 0.6 + (0.2 if n <= 40 else 0.1) * n)))
        for ax, (m, scale) in zip(axes[0], cols):
            f = t.frame[(t.frame.measure == m) & (t.frame.scale == scale)].set_index("system").loc[list(t.systems)]
            red = f["differs"].to_numpy(bool)
            bracketed = scale == "interval" and m in t.bracketed
            if bracketed:  # the mean's exact range over every value inside the brackets, behind the point
                ax.hlines(y, f["mean_lo"].to_numpy(float), f["mean_hi"].to_numpy(float), color="0.6", lw=4, zorder=0)
            for mask, colour in ((~red, "tab:blue"), (red, "tab:red")):
                ax.errorbar(f["mean"].to_numpy()[mask], y[mask], xerr=f["ci95"].to_numpy()[mask], fmt="o",
                            color=colour, ms=3 if n <= 40 else 2, elinewidth=0.8, capsize=0)
            ax.set_title(f"{m}{_SCALE_WORDS[scale]}")
            ax.set_xlabel("mean, 95% CI" + ("; grey: over the brackets" if bracketed else ""))
        names = [f"{mk} {s}" + (" ≠" if _differs(t, s) else "") for mk, s in zip(t.letters, t.systems)]
        axes[0][0].set_yticks(y, names, fontsize=label_size)
        for lab, s in zip(axes[0][0].get_yticklabels(), t.systems):
            if _differs(t, s):
                lab.set_color("tab:red")
        axes[0][0].set_ylim(-1, n)
        fig.suptitle(f"{len(t.systems)} systems, {t.n_topics} topics; red ≠: conclusions differ between the scales")
        fig.tight_layout()
    if path is not None:
        p = Path(path)
        write_figure(fig, p.parent, p.stem, formats=(p.suffix.lstrip(".").lower() or "png",), show=False)
    return fig


def _differs(t: ComparisonTable, system: str) -> bool:
    return bool(t.frame.loc[t.frame.system == system, "differs"].any())
