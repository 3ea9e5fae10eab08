"""The partial order of binary runs of length N and how measures space them (FFF21 §3.2, Figs 1–2).

Partial order (FFF21 §3.2, after Ferrante et al.): a run s is at least as good as a run r,
``r ⪯ s``, when s can be reached from r by *swaps* (a relevant document exchanged with a
non-relevant one ranked above it) and *replacements* (a non-relevant document turned relevant).
For binary runs this is dominance of the cumulated relevance,

    r ⪯ s  ⇔  Σ_{i≤k} r_i ≤ Σ_{i≤k} s_i  for every k = 1..N,

and its covering relation (the edges of the Hasse diagram, Fig. 1) consists of exactly two moves:

* an adjacent swap: a relevant document moves up one rank (… 0 1 … → … 1 0 …);
* turning the *last* document from non-relevant to relevant (… 0 → … 1).

A replacement anywhere else is not a cover: (0,0,0,0) → (1,0,0,0) passes through (0,0,0,1),
(0,0,1,0), (0,1,0,0). :func:`cover_edges` builds the diagram from these two moves and the tests
check it against the transitive reduction of the dominance order. The poset is graded by
``level(r) = Σ_i r_i (N − i + 1)`` (each cover adds 1), which gives the rows of Fig. 1.

Induced total order and spacing (FFF21 §3.2, Fig. 2; §5 eq. 1–2): a measure M orders the runs by
value; :func:`spacing` lists the distinct values with their tied runs, the gaps, and decides
equi-spacing exactly. Rational measures use :meth:`irscales.measures.Measure.exact`; DCG with
log base 2 (Järvelin–Kekäläinen discount, weights 1, 1, 1/log2 3, 1/2) is represented exactly by
:class:`irscales.enumeration._dcg.QLog3` for N ≤ 4. The ranked (interval-scaled) version of eq. (2)
on these exact values is :func:`irscales.ranks.phi_of_image`; the enumeration engine handles large N.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from irscales import measures as M
from irscales.enumeration._dcg import qlog3_dcg
from irscales.figures import styled
from irscales.theory.orders import WeakTopHeaviness

__all__ = ["all_runs", "cover_edges", "draw_hasse", "hasse_layout", "spacing", "draw_spacing"]

Run = tuple[int, ...]


def all_runs(N: int) -> list[Run]:
    """All 2^N binary runs of length N, as tuples (rank 1 first)."""
    if not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"run length N must be a positive integer, got {N!r}")
    if N > 16:
        raise ValueError(f"N = {N}: 2^N runs is too many for this module (meant for Figs 1–2); use the enumeration engine")
    return list(itertools.product((0, 1), repeat=int(N)))


def _run(r: Sequence[int], where: str = "run") -> Run:
    t = tuple(int(x) for x in r)
    if not t or any(x not in (0, 1) for x in t) or len(t) != len(r):
        raise ValueError(f"{where} must be a non-empty sequence of 0/1 relevance values, got {list(r)!r}")
    return t


_WEAK = WeakTopHeaviness(c=1)  # the same partial order as FFP17 eq. (1) / MM23 Rules 1–2


def leq(r: Sequence[int], s: Sequence[int]) -> bool:
    """r ⪯ s: every prefix of s holds at least as many relevant documents as that of r."""
    a, b = _run(r, "r"), _run(s, "s")
    if len(a) != len(b):
        raise ValueError(f"runs of different length cannot be compared: {a} and {b}")
    return bool(_WEAK.leq(np.array(a), np.array(b)))


def comparable(r: Sequence[int], s: Sequence[int]) -> bool:
    return leq(r, s) or leq(s, r)


def level(r: Sequence[int]) -> int:
    """Rank in the graded poset: Σ_i r_i (N − i + 1) = Σ_k (cumulated relevance at k)."""
    return int(_WEAK.rank(np.array(_run(r))))


def cover_edges(N: int) -> list[tuple[Run, Run]]:
    """Edges (r, s) of the Hasse diagram, s covering r: adjacent swap up, or last doc 0 → 1."""
    edges = []
    for r in all_runs(N):
        for i in range(N - 1):
            if r[i] == 0 and r[i + 1] == 1:
                s = list(r)
                s[i], s[i + 1] = 1, 0
                edges.append((r, tuple(s)))
        if r[-1] == 0:
            edges.append((r, r[:-1] + (1,)))
    return edges


def transitive_reduction(N: int) -> list[tuple[Run, Run]]:
    """Covers computed from the order itself (r ≺ s with nothing strictly between); for checks."""
    runs = all_runs(N)
    cs = np.array([np.cumsum(r) for r in runs])
    le = np.all(cs[:, None, :] <= cs[None, :, :], axis=-1)
    lt = le & ~np.eye(len(runs), dtype=bool)
    # s covers r iff r < s and no t with r < t < s
    between = (lt.astype(np.int64) @ lt.astype(np.int64)) > 0
    cov = lt & ~between
    return [(runs[i], runs[j]) for i, j in zip(*np.nonzero(cov))]


# --------------------------------------------------------------------- exact values for Fig 2


def exact_values(measure: M.Measure, N: int, rb: int | None = None) -> dict[Run, object]:
    """Exact value of ``measure`` on every binary run of length N.

    Rational measures → Fractions via ``measure.exact``; ``DCG(base=2)`` (binary gains, 'jk'
    discount) → :class:`QLog3` for N ≤ 4. ``rb`` (recall base) defaults to N, as in FFF21 Fig. 2
    where N = RB = 4 (footnote 6: Precision and Recall then coincide).
    """
    runs = all_runs(N)
    rb = N if rb is None else rb
    if measure.numerator() == M.DCG(base=2):  # DCG_b02 (nDCG_b02's order is its numerator's)
        return {r: qlog3_dcg(r) for r in runs}
    if not measure.rational:
        raise M.NotRationalError(f"exact values are available for DCG(base=2) with binary gains only, got {measure!r}")
    vals = measure.exact(np.array(runs), rb=rb if measure.needs_rb else None)
    return dict(zip(runs, vals.tolist()))


@dataclass(frozen=True)
class Spacing:
    """Distinct values of a measure in increasing order, the runs tied at each, and the gaps."""

    measure: str
    values: tuple            # distinct values, increasing (exact)
    runs: tuple              # runs[k]: tuple of runs with value values[k]
    gaps: tuple              # values[k+1] − values[k] (exact)

    @property
    def equispaced(self) -> bool:
        return len(set(self.gaps)) <= 1

    @property
    def symmetric(self) -> bool:
        """Is the set of values symmetric about the middle of its range (fold test of Fig. 2)?"""
        lo, hi = self.values[0], self.values[-1]
        return set(self.values) == {(lo + hi) - v for v in self.values}

    def largest_gap(self) -> tuple[int, object]:
        """Index k and size of the largest gap (between values[k] and values[k+1])."""
        k = max(range(len(self.gaps)), key=lambda i: self.gaps[i])
        return k, self.gaps[k]

    def rows(self, top_first: bool = True) -> list[dict]:
        """One row per distinct value: exact value, float, φ (eq. 2), runs listed beside it."""
        out = []
        for k, (v, rs) in enumerate(zip(self.values, self.runs)):
            out.append({"value": str(v), "approx": round(float(v), 4), "phi": k + 1,
                        "runs": " ".join(run_label(r) for r in rs)})
        return out[::-1] if top_first else out


def spacing(values: Mapping[Run, object], measure: str = "") -> Spacing:
    """Group runs by exact value (ties) and order the groups increasingly."""
    groups: dict = {}
    for r, v in values.items():
        groups.setdefault(v, []).append(r)
    vals = sorted(groups)
    runs = tuple(tuple(sorted(groups[v], reverse=True)) for v in vals)
    gaps = tuple(b - a for a, b in zip(vals, vals[1:]))
    return Spacing(measure, tuple(vals), runs, gaps)


# ----------------------------------------------------------------------------------- drawing

# Colours of FFF21 Fig. 1, by number of relevant documents retrieved (0..4).
RUN_COLOURS = {0: "#00b3b3", 1: "#0000ff", 2: "#ff0000", 3: "#800080", 4: "#000000"}


def run_label(r: Sequence[int]) -> str:
    return "(" + ",".join(str(int(x)) for x in r) + ")"


def hasse_layout(N: int) -> dict[Run, tuple[float, float]]:
    """Positions of the runs in the Hasse diagram: row = :func:`level`, more relevant documents to the left."""
    by_level: dict[int, list[Run]] = {}
    for r in all_runs(N):
        by_level.setdefault(level(r), []).append(r)
    pos = {}
    for lv, rs in by_level.items():
        # more relevant documents to the left: gives the two "branches" of Fig. 1
        rs.sort(key=lambda r: (-sum(r), tuple(-x for x in r)))
        for i, r in enumerate(rs):
            pos[r] = (i - (len(rs) - 1) / 2, lv)
    return pos


def draw_hasse(N: int = 4, ax=None, title: str | None = None):
    """Draw the Hasse diagram of the runs of length N (FFF21 Fig. 1); returns the figure."""
    import matplotlib.pyplot as plt

    pos = hasse_layout(N)
    if ax is None:
        width = max(4.0, 1.6 * max(sum(1 for p in pos.values() if p[1] == lv) for lv in {p[1] for p in pos.values()}))
        fig, ax = plt.subplots(figsize=(width + 2, 0.55 * (max(p[1] for p in pos.values()) + 2)))
    else:
        fig = ax.figure
    for r, s in cover_edges(N):
        (x0, y0), (x1, y1) = pos[r], pos[s]
        ax.plot([x0, x1], [y0, y1], color="0.6", lw=0.8, zorder=1)
    for r, (x, y) in pos.items():
        ax.text(x, y, run_label(r), ha="center", va="center", fontsize=8, fontweight="bold",
                color=RUN_COLOURS.get(sum(r), "k"), zorder=2,
                bbox=dict(boxstyle="round,pad=0.2", fc="white", ec="none"))
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], marker="s", ls="", color=RUN_COLOURS.get(k, "k"), label=f"{k} relevant")
               for k in range(N + 1)]
    ax.legend(handles=handles, loc="upper left", fontsize=7, frameon=False)
    xs = [p[0] for p in pos.values()]
    ax.set_xlim(min(xs) - 1.2, max(xs) + 1.2)
    ax.set_ylim(-0.8, max(p[1] for p in pos.values()) + 0.8)
    ax.set_ylabel("level  Σ_i r_i (N − i + 1)")
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(title or f"Hasse diagram of the {2 ** N} runs of length {N} (covers: swap up, last doc → relevant)",
                 fontsize=9)
    return fig


def spread_labels(ys: list[float], sep: float) -> list[float]:
    """Label positions near ``ys`` (increasing) at least ``sep`` apart, staying in the data range."""
    out = list(ys)
    for i in range(1, len(out)):
        out[i] = max(out[i], out[i - 1] + sep)
    top = ys[-1] if ys else 0.0
    if out and out[-1] > top:  # pushed past the top: shift down from above as little as needed
        out[-1] = max(top, ys[-1])
        for i in range(len(out) - 2, -1, -1):
            out[i] = min(out[i], out[i + 1] - sep)
    return out


def draw_spacing(sp: Spacing, ax, title: str | None = None, ylabel: str = "score", per_line: int = 4,
                 fontsize: float = 6):
    """One panel of FFF21 Fig. 2: a square per distinct value, tied runs written beside it
    (``per_line`` runs per text line; labels of close values are spread apart with a leader)."""
    ys = [float(v) for v in sp.values]
    ax.plot([0] * len(ys), ys, "s", color="tab:blue", ms=5)
    labels = []
    for rs in sp.runs:
        names = [run_label(r) for r in rs]
        labels.append("\n".join(" ".join(names[i:i + per_line]) for i in range(0, len(names), per_line)))
    span = (ys[-1] - ys[0]) or 1.0
    nlines = [lab.count("\n") + 1 for lab in labels]
    sep = 0.035 * span * max(1, min(nlines))
    label_y = spread_labels(ys, sep)
    for y, ly, lab in zip(ys, label_y, labels):
        ax.text(0.12, ly, lab, va="center", fontsize=fontsize)
        if abs(ly - y) > 1e-9 * span:
            ax.plot([0.02, 0.11], [y, ly], color="0.6", lw=0.5)
    ax.set_xlim(-0.1, 1.6)
    # a label of several lines is centred on its value: leave room for its half-height at both ends
    ax.set_ylim(min(ys[0], label_y[0]) - (0.05 + 0.025 * (nlines[0] - 1)) * span,
                max(ys[-1], label_y[-1]) + (0.05 + 0.025 * (nlines[-1] - 1)) * span)
    ax.set_xticks([])
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title(title or sp.measure, fontsize=9)
    return ax


def spacing_grid(spacings: Mapping[str, Spacing], titles: Mapping[str, str] | None = None, title: str = "",
                 ncols: int = 4):
    """FFF21 Fig. 2 as one figure: a :func:`draw_spacing` panel per measure (keys of ``spacings``,
    also the y labels), ``ncols`` per row, sized so that the run labels stay readable when the
    figure is shown at its natural size. Returns the Figure."""
    import matplotlib.pyplot as plt

    if not spacings:
        raise ValueError("spacing_grid: no spacings given")
    nrows = -(-len(spacings) // ncols)
    with styled():
        fig, axes = plt.subplots(nrows, ncols, figsize=(3.1 * ncols, 3.7 * nrows), squeeze=False,
                                 layout="constrained")
        for ax, (key, sp) in zip(axes.flat, spacings.items()):
            draw_spacing(sp, ax, title=(titles or {}).get(key), ylabel=key, per_line=3, fontsize=6.5)
        for ax in list(axes.flat)[len(spacings):]:
            ax.axis("off")
        if title:
            fig.suptitle(title)
    return fig
