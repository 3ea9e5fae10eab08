"""Plots of the scale of a measure: "all the possible values" of FFF21 Figs. 3–5 (§7.1.1).

FFF21 Figs. 3–5 put all the (c+1)^N runs of length N on the x axis, sorted by the value of the
measure, and the value on the y axis; the x labels give the fraction of runs up to that point. A
horizontal segment is a set of tied runs, a vertical jump a gap between consecutive values, so the
picture shows at once whether the values are equi-spaced (interval scale) and where ties sit.

The figures are drawn from an :class:`irscales.enumeration.Scale` through
:meth:`~irscales.enumeration.Scale.quantiles`, never from the runs themselves: at most
``max_points`` run positions are read, chunk by chunk, so N = 30 (2^30 runs) plots in bounded
memory. When a scale has at most ``max_points`` runs every run is drawn. :func:`tie_summary` gives
the numbers behind "where ties occur", also chunk by chunk.

Figures in notebooks (the one way every figure is written and shown)
    Every figure of the companion is written by :func:`write_figure` (or :func:`save_figure`, its
    ``figures/<paper>/`` form), whether a notebook cell calls it or a library function does
    (FFF21 Figs. 1–5, Fer17's figures, …). Inside a Jupyter kernel it also shows the figure inline,
    through ``IPython.display``, before closing it; from the command line, tests or a plain Python
    session it only writes the files (``show=None``; ``show=True`` / ``False`` forces either). The
    inline copy is a small PNG (:data:`INLINE_DPI` dots per inch, 8-bit palette, no metadata), so the
    stored notebooks stay small and their outputs deterministic; the files under ``figures/`` keep
    the full resolution. It is published as ``image/png`` only (no ``text/plain``), which nbval does
    not compare (it skips ``image/png`` unless ``--nbdime``): a figure shown or not (e.g. a cell that
    skips a figure when shared data are hidden) never changes what nbval checks.
"""

from __future__ import annotations

import base64
import io
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from irscales.paths import figures_dir

__all__ = ["STYLE", "save_figure", "write_figure", "all_values"]

#: One look for every figure of the companion (matplotlib rc parameters): fonts sized for a figure
#: shown at its natural size in ``report.html`` (150 dpi PNG, about 1:1 on screen), light grid.
STYLE = {"font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "xtick.labelsize": 8, "ytick.labelsize": 8,
         "legend.fontsize": 7, "legend.title_fontsize": 8, "figure.titlesize": 11, "axes.grid": True,
         "grid.linewidth": 0.4, "grid.alpha": 0.5, "lines.markersize": 4}
#: How a correlation response is written on an axis or in a title.
RESPONSE_LABELS = {"tau": "τ", "tau_ap": "τ_AP"}
#: Resolution of the copy of a figure shown inline in a notebook (the files keep theirs, 150 dpi by
#: default): 72 dpi draws a figure at the size Jupyter shows it and keeps a stored notebook small.
INLINE_DPI = 72


def styled():
    """Context manager applying :data:`STYLE` (``with plots.styled(): fig = ...``)."""
    import matplotlib

    return matplotlib.rc_context(STYLE)


def _collisions(fig, axis) -> list[tuple[str, str]]:
    """Neighbouring tick labels of one axis whose drawn boxes overlap (more than half a pixel)."""
    renderer = fig.canvas.get_renderer()
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in axis.get_ticklabels()
             if t.get_visible() and t.get_text()]
    return [(a, b) for (a, ba), (b, bb) in zip(boxes, boxes[1:])
            if min(ba.x1, bb.x1) - max(ba.x0, bb.x0) > 0.5 and min(ba.y1, bb.y1) - max(ba.y0, bb.y0) > 0.5]


def tick_label_overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of neighbouring tick labels (same axis) whose drawn boxes overlap, as (label, label)."""
    fig.canvas.draw()
    return [pair for ax in fig.axes for axis in (ax.xaxis, ax.yaxis) for pair in _collisions(fig, axis)]


def fit_tick_labels(fig, min_size: float = 5.5) -> None:
    """Make every axis' tick labels readable without overlap: x labels that collide are rotated
    (45°, then 90°), then shrunk down to ``min_size`` points; colliding y labels are shrunk."""
    fig.canvas.draw()
    for ax in fig.axes:
        for axis, steps in ((ax.xaxis, ("rot45", "rot90", "shrink")), (ax.yaxis, ("shrink",))):
            for step in steps:
                if not _collisions(fig, axis):
                    break
                labels = axis.get_ticklabels()
                if step == "rot45":
                    for t in labels:
                        t.set(rotation=45, ha="right", rotation_mode="anchor")
                elif step == "rot90":
                    for t in labels:
                        t.set(rotation=90, ha="center", rotation_mode="default")
                else:
                    while labels[0].get_fontsize() > min_size and _collisions(fig, axis):
                        for t in labels:
                            t.set_fontsize(t.get_fontsize() - 0.5)
                        fig.canvas.draw()
                fig.canvas.draw()


def _check_scale(scale, where: str) -> None:
    # duck-typed so that tests can pass small stand-ins; a clear message beats an AttributeError
    for attr in ("quantiles", "n_runs", "n_distinct", "iter_chunks", "measure", "N"):
        if not hasattr(scale, attr):
            raise TypeError(f"{where}: expected an irscales.enumeration.Scale, got {type(scale).__name__}"
                            f" (no attribute {attr!r})")


def run_positions(n_runs: int, max_points: int = 2001) -> np.ndarray:
    """Fractions q ∈ [0, 1] of the runs to draw: q_i = i/(n_runs − 1) for every run when
    n_runs ≤ max_points (so :meth:`Scale.quantiles` returns run i exactly), else max_points evenly
    spaced fractions including 0 and 1 (the smallest and the largest value are always drawn)."""
    if not isinstance(n_runs, (int, np.integer)) or n_runs < 1:
        raise ValueError(f"run_positions: n_runs must be a positive integer, got {n_runs!r}")
    if not isinstance(max_points, (int, np.integer)) or max_points < 2:
        raise ValueError(f"run_positions: max_points must be an integer ≥ 2, got {max_points!r}")
    if n_runs == 1:
        return np.zeros(1)
    if n_runs <= max_points:
        return np.arange(n_runs) / (n_runs - 1)
    return np.linspace(0.0, 1.0, int(max_points))


def _query(q: np.ndarray, n_runs: int) -> np.ndarray:
    """Fractions to pass to :meth:`Scale.quantiles` so that it returns run ⌊q·(n_runs − 1)⌉.

    ``quantiles`` reads run ⌊q·(n_runs − 1)⌋, and in floating point (i/(n−1))·(n−1) is often just
    below i, which would draw run i − 1's value at run i's position; half a run of slack fixes it.
    """
    if n_runs <= 1:
        return np.zeros_like(q)
    return np.minimum(q + 0.5 / (n_runs - 1), 1.0)


def all_values(ax, scale, *, max_points: int = 2001, color: str | None = None,
               title: str | None = None, ylabel: str | None = None, annotate: bool = True):
    """One panel of FFF21 Figs. 3–5: the runs sorted by value (x, as fraction of runs) against the
    value (y). Returns the :class:`matplotlib.lines.Line2D` drawn (its data are the points).

    Points are joined by a step line (``steps-post``), so ties show as horizontal segments; with
    few runs (≤ 64 drawn points) each run is also marked. ``annotate`` writes the number of
    distinct values and of runs in the upper left corner.
    """
    _check_scale(scale, "all_values")
    from matplotlib.ticker import PercentFormatter

    q = run_positions(scale.n_runs, max_points)
    y = scale.quantiles(_query(q, scale.n_runs))
    marker = "." if len(q) <= 64 else None
    (line,) = ax.plot(q, y, drawstyle="steps-post", marker=marker, ms=3, lw=1.0, color=color)
    ax.set_xlim(-0.02, 1.02)
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xticks(np.linspace(0, 1, 5))
    ax.tick_params(labelsize=7)
    ax.grid(True, lw=0.3, alpha=0.5)
    if annotate:
        ax.text(0.03, 0.97, f"{scale.n_distinct:,} values\n{scale.n_runs:,} runs", transform=ax.transAxes,
                va="top", ha="left", fontsize=7, color="0.3")
    ax.set_title(title if title is not None else f"{scale.measure.key}, N = {scale.N}", fontsize=9)
    if ylabel is not None:
        ax.set_ylabel(ylabel, fontsize=8)
    return line


def all_values_grid(scales: Mapping[str, Mapping[int, object]], *, title: str, max_points: int = 2001,
                    panel_size: tuple[float, float] = (3.2, 2.4)):
    """A grid of :func:`all_values` panels: one row per measure (keys of ``scales``), one column
    per run length N (keys of each inner mapping, sorted). Every row must have the same run lengths.

    The x labels (fraction of runs, FFF21 §7.1.1) are on the bottom row, the measure names on the
    left column. Returns the figure.
    """
    import matplotlib.pyplot as plt

    if not scales:
        raise ValueError("all_values_grid: no scales given")
    names = list(scales)
    ns = sorted(scales[names[0]])
    if not ns:
        raise ValueError(f"all_values_grid: no run lengths for {names[0]!r}")
    for name in names:
        if sorted(scales[name]) != ns:
            raise ValueError(f"all_values_grid: row {name!r} has run lengths {sorted(scales[name])},"
                             f" row {names[0]!r} has {ns}; every row needs the same N")
    fig, axes = plt.subplots(len(names), len(ns), squeeze=False,
                             figsize=(panel_size[0] * len(ns), panel_size[1] * len(names)))
    for i, name in enumerate(names):
        for j, n in enumerate(ns):
            ax = axes[i, j]
            all_values(ax, scales[name][n], max_points=max_points, title=f"{name}, N = {n}",
                       ylabel=name if j == 0 else None)
            if i == len(names) - 1:
                ax.set_xlabel("runs sorted by value (fraction of runs)", fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def tie_summary(scale, bins: int | None = None) -> dict:
    """Where ties occur in a scale, read chunk by chunk (bounded memory).

    Returns ``n_runs``, ``n_distinct``, ``n_tied_values`` (values taken by ≥ 2 runs),
    ``runs_in_ties`` (runs sharing their value with another run), ``largest_tie`` (the largest
    multiplicity), ``tie_sizes`` (multiplicity → number of values with it, for multiplicities ≥ 2)
    and ``tied_value_range`` (smallest and largest tied value, or None when there are no ties).
    With ``bins = k`` also ``by_bin``: k equal-width bins over [smallest, largest value], each a
    dict ``lo``, ``hi``, ``n_values`` (distinct values in the bin), ``n_tied_values``; a bin is
    [lo, hi) except the last, which includes the largest value.
    """
    _check_scale(scale, "tie_summary")
    if bins is not None and (not isinstance(bins, (int, np.integer)) or bins < 1):
        raise ValueError(f"tie_summary: bins must be a positive integer or None, got {bins!r}")
    edges = None
    if bins is not None:
        lo_v, hi_v = (float(v) for v in scale.quantiles(np.array([0.0, 1.0])))
        edges = np.linspace(lo_v, hi_v, int(bins) + 1) if hi_v > lo_v else np.array([lo_v, lo_v + 1.0])
        per_bin = np.zeros((len(edges) - 1, 2), dtype=np.int64)  # distinct values, tied values
    n_distinct = n_runs = n_tied = in_ties = largest = 0
    sizes: dict[int, int] = {}
    lo = hi = None
    for values, counts in scale.iter_chunks():
        counts = np.asarray(counts, dtype=np.int64)
        values = np.asarray(values, dtype=float)
        n_distinct += len(counts)
        n_runs += int(counts.sum())
        tied = counts > 1
        if edges is not None:
            b = np.clip(np.searchsorted(edges, values, "right") - 1, 0, len(edges) - 2)
            per_bin[:, 0] += np.bincount(b, minlength=len(edges) - 1)
            per_bin[:, 1] += np.bincount(b[tied], minlength=len(edges) - 1)
        if tied.any():
            n_tied += int(tied.sum())
            in_ties += int(counts[tied].sum())
            largest = max(largest, int(counts.max()))
            u, k = np.unique(counts[tied], return_counts=True)
            for a, c in zip(u.tolist(), k.tolist()):
                sizes[a] = sizes.get(a, 0) + c
            v = values[tied]
            lo = float(v[0]) if lo is None else lo
            hi = float(v[-1])
    out = {"n_runs": n_runs, "n_distinct": n_distinct, "n_tied_values": n_tied, "runs_in_ties": in_ties,
           "largest_tie": max(largest, 1 if n_runs else 0), "tie_sizes": dict(sorted(sizes.items())),
           "tied_value_range": None if lo is None else (lo, hi)}
    if edges is not None:
        out["by_bin"] = [{"lo": float(edges[i]), "hi": float(edges[i + 1]), "n_values": int(per_bin[i, 0]),
                          "n_tied_values": int(per_bin[i, 1])} for i in range(len(edges) - 1)]
    return out


def in_notebook() -> bool:
    """True inside a Jupyter kernel (an IPython shell with a kernel), False in a terminal IPython,
    a script or a test; IPython is not imported when it is not already loaded."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def inline_png(fig, dpi: int = INLINE_DPI) -> bytes:
    """``fig`` as the small PNG shown inline: ``dpi`` dots per inch, tight bounding box, no
    metadata, quantised to an 8-bit palette (same figure, same bytes)."""
    from PIL import Image

    raw = io.BytesIO()
    fig.savefig(raw, format="png", dpi=dpi, bbox_inches="tight", metadata={"Software": None})
    raw.seek(0)
    with Image.open(raw) as im:
        small = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    out = io.BytesIO()
    small.save(out, format="png", optimize=True)
    return out.getvalue()


def show_inline(fig, dpi: int = INLINE_DPI) -> None:
    """Show ``fig`` in the notebook's output as :func:`inline_png` (``image/png`` only: nbval
    does not compare it, module docstring)."""
    from IPython.display import display

    display({"image/png": base64.b64encode(inline_png(fig, dpi)).decode("ascii")}, raw=True)


def write_figure(fig, directory: str | Path, stem: str, formats: Sequence[str] = ("png", "pdf"),
                 dpi: int = 150, show: bool | None = None) -> list[Path]:
    """Save ``fig`` as ``directory/stem.<fmt>`` for each format, reproducibly (no creation date in
    the PDF or SVG, no software tag in the PNG), close it, and return the paths. Colliding tick
    labels are first rotated or shrunk (:func:`fit_tick_labels`). ``show``: also show the figure
    inline (:func:`show_inline`); None (default) shows it when running in a Jupyter kernel
    (:func:`in_notebook`), so every figure a notebook writes is also on its page."""
    if not stem or "/" in stem or "\\" in stem:
        raise ValueError(f"save_figure: stem must be a plain file name without extension, got {stem!r}")
    bad = [f for f in formats if f not in ("png", "pdf", "svg")]
    if bad or not formats:
        raise ValueError(f"save_figure: formats must be among png, pdf, svg, got {list(formats)!r}")
    import matplotlib.pyplot as plt

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fit_tick_labels(fig)
    paths = []
    for ext in formats:
        meta = {"pdf": {"CreationDate": None}, "svg": {"Date": None}, "png": {"Software": None}}[ext]
        p = directory / f"{stem}.{ext}"
        fig.savefig(p, dpi=dpi, bbox_inches="tight", metadata=meta)
        paths.append(p)
    if in_notebook() if show is None else show:
        show_inline(fig)
    plt.close(fig)
    return paths


def save_figure(fig, paper: str, stem: str, formats: Sequence[str] = ("png", "pdf"), dpi: int = 150,
                show: bool | None = None) -> list[str]:
    """Save ``fig`` under ``figures/<paper>/`` (:func:`irscales.paths.figures_dir`) as
    :func:`write_figure` does (shown inline in a notebook); returns the names relative to the figures
    folder (``"<paper>/<stem>.png"``, …), so notebook outputs hold no machine paths. Put "simulated"
    in ``stem`` when the data are simulated."""
    return [f"{paper}/{p.name}" for p in write_figure(fig, figures_dir(paper), stem, formats, dpi, show)]
