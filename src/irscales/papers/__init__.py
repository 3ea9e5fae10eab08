"""The paper layer: each paper's reproduction, built on the core library, and the report.

* :mod:`~irscales.papers.fff21`  FFF21 — scales, Tables 2–6, printed-input claims, beyond §8 (notebooks 01a–c, 07);
* :mod:`~irscales.papers.ffp19`  FFP19 — the formal theory's cases and thresholds (notebook 02);
* :mod:`~irscales.papers.fer17`  Fer17 — correlation among measures, the Grid of Points, ANOVA (notebook 03);
* :mod:`~irscales.papers.ffp17`  FFP17 — interval-like scales (notebook 04);
* :mod:`~irscales.papers.mm23`   MM23 — IPSO, Tables 1–3, Figs 1–8 (notebook 05);
* :mod:`~irscales.papers.printing` — the one reading of a printed number and the rule that says whether
  ours agrees with it (rounded, within the paper's printing, or not);
* :mod:`~irscales.papers.published`, :mod:`~irscales.papers.items`, :mod:`~irscales.papers.report`,
  :mod:`~irscales.papers.report_html`, :mod:`~irscales.papers.report_assets` — the printed values, the comparison
  with ours, the report and its style;
  :mod:`~irscales.papers.analogues` — its real-data analogue sections (never counted).

Import the paper you need (``from irscales.papers import mm23``); nothing is loaded here.
"""

__all__: list[str] = []
