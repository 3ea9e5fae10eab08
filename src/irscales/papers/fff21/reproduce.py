"""FFF21 without TREC data, in one call: :func:`reproduce_scales` runs every section of notebook
01a in the paper's order and returns what the notebook shows.

Sections (each a function of its own module, tested there): §2 Examples 1–8
(:mod:`~irscales.papers.fff21.examples`), §3.4 and Example 11 (:mod:`~irscales.papers.fff21.sets`),
Figs. 1–2 and Examples 9–13 (:mod:`~irscales.papers.fff21.runs4`), Figs. 3–5 and §5.1
(:mod:`~irscales.papers.fff21.scales`), footnotes 7–8 (:mod:`~irscales.papers.fff21.claims`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from irscales.papers.fff21 import examples, runs4, scales, sets
from irscales.papers.fff21.claims import footnote_claims
from irscales.papers import published
from irscales.papers.fff21.record import Record
from irscales.paths import figures_dir
from irscales.theory import setbased as sb

__all__ = ["ScalesReproduction", "reproduce_scales"]


@dataclass
class ScalesReproduction:
    """What :func:`reproduce_scales` computed: ``record`` (items, notes), ``parts`` (section name →
    :class:`Part`, table or printed text, in the order computed), ``figure_scales`` and ``out``."""

    record: Record
    parts: dict[str, Any] = field(default_factory=dict)
    figure_scales: scales.FigureScales | None = None
    out: Path | None = None

    def __getitem__(self, name: str) -> Any:
        return self.parts[name]

    def compare(self) -> published.Comparison:
        """Every reproduced item beside ``data/published/fff21.csv``, routed by :func:`scales.route`."""
        return self.record.compare("fff21", route=scales.route(self.record.reproduced))


def reproduce_scales(*, seed: int = 20210401, n_transformations: int = 300, max_NK: int = 6, hasse_N: int = 4,
                     scale_Ns=(5, 10, 15, 20), max_points: int = 2001, out: str | Path | None = None) -> ScalesReproduction:
    """Every FFF21 result of notebook 01a: meaningfulness with ``n_transformations`` random
    permissible transformations (numpy Generator ``seed``), S[N, K] for N, K ≤ ``max_NK``, Figs. 1–2
    on runs of length ``hasse_N``, Figs. 3–5 for the run lengths ``scale_Ns`` (``max_points`` runs
    read per panel). Figures and CSVs go to ``out`` (default ``figures/fff21``)."""
    out = Path(out) if out is not None else figures_dir("fff21")
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    rec = Record()
    p: dict[str, Any] = {}
    p["meaningfulness"] = rec.add(examples.meaningfulness_checks(rng, n_transformations))
    p["printed_numbers"] = examples.printed_numbers()
    p["examples_1_2_4"] = rec.add(examples.examples_1_2_4(rng, n_transformations))
    p["s22"] = sets.s22()
    p["images"] = sets.images_table()
    p["summary_NK"] = sb.summary(range(1, max_NK + 1), range(1, max_NK + 1))
    p["disagreeing_pairs"] = sets.disagreeing_pairs_text()
    p["section34"] = rec.add(sets.section34_claims(max_NK))
    p["example11"] = rec.add(sets.example11())
    p["figure1"] = rec.add(runs4.figure1(hasse_N, out))
    f2 = runs4.figure2(hasse_N)
    p["spacing"] = runs4.spacing_table(f2)
    p["spacing_text"] = runs4.spacing_text(f2)
    p["figure2"] = runs4.plot_figure2(f2, out)
    p["figure2_claims"] = rec.add(runs4.figure2_claims(f2))
    p["example9"] = rec.add(runs4.example9())
    p["table1"] = rec.add(runs4.table1(f2))
    p["tie_breaking"] = rec.add(runs4.tie_breaking())
    p["example12"] = rec.add(runs4.example12(f2))
    p["example13"] = rec.add(runs4.example13())
    fs = scales.build_scales(scale_Ns)
    p["scales"] = scales.scales_table(fs)
    p["figures_3_5"] = scales.plot_figures(fs, out, max_points)
    p["figure3"] = rec.add(scales.figure3_claims(fs))
    p["figure4"] = rec.add(scales.figure4_claims(fs, p["figure3"]))
    p["figure5"] = rec.add(scales.figure5_claims(fs, out))
    p["dcg_conventions"] = scales.dcg_conventions(fs)
    p["ties"] = scales.ties_table(fs, out)
    p["footnotes"] = rec.keep(footnote_claims())
    return ScalesReproduction(rec, p, fs, out)
