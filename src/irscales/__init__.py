"""irscales — measurement theory of IR evaluation measures.

Rooms (one concern per module):

- :mod:`irscales.measures`       evaluation measures as declared, vectorised objects (exact where rational)
- :mod:`irscales.enumeration`    scales of measures over all runs REL^N, the ranked measure φ (FFF21 §5)
- :mod:`irscales.papers.beyond_fff21`         beyond FFF21 (issue 20): counted value curves, graded scales, graded Table 2 τ
- :mod:`irscales.theory.orders`         orders on runs, covers, rank functions, FFP17's Δ (FFP19, FFP17)
- :mod:`irscales.theory.scales`         checkers: ordinal / interval / interval-like scale properties
- :mod:`irscales.theory.meaningfulness` meaningful statements under permissible transformations (FFF21 §2)
- :mod:`irscales.theory.setbased`       P, R, F1 on S[N, K] (FFF21 §3.4)
- :mod:`irscales.theory.hasse`          Hasse diagrams of runs (FFF21 Fig. 1)
- :mod:`irscales.figures`          "all possible values" plots from exact scales (FFF21 Figs 3–5)
- :mod:`irscales.ipso`           innate pairwise SERP orderings (MM23)
- :mod:`irscales.ipso_runs`      IPSO on a set of runs: Table 3, Figs 5–8, IPSO sign test (MM23 §3)
- :mod:`irscales.corroboration`  MM23's † / ‡ reporting rule
- :mod:`irscales.correlation`    Kendall τ, τ_AP, overall and topic-by-topic
- :mod:`irscales.stats.significance`   the eight significance procedures of FFF21 §7.3
- :mod:`irscales.ranked`         measures vs their ranked versions on a collection (FFF21 Tables 2–6)
- :mod:`irscales.stats.anova`          ω², power, crossed/nested ANOVA, Tukey HSD on factor levels (Fer17)
- :mod:`irscales.papers.fer17`          Fer17's measures on a collection
- :mod:`irscales.stats.sampling`       Fer17's sampling designs (RQ1–RQ3), KDE + KL validation
- :mod:`irscales.data.trec`             TREC run and qrels files → relevance arrays
- :mod:`irscales.data.collection`    the Collection data layer (TREC or simulated)
- :mod:`irscales.data.simulate`       simulated TREC-like collections (labelled simulated)
- :mod:`irscales.data.smart`          SMART-format parsers (Cranfield, CISI, CACM)
- :mod:`irscales.data.datasets`       the public collections (shipped archives, mirror or download)
- :mod:`irscales.data.gop`            a public Grid of Points: stop lists × stemmers × retrieval models
- :mod:`irscales.papers.published`      the papers' printed numbers and the comparison with ours
- :mod:`irscales.papers.report`         the companion report
- :mod:`irscales.paths`          settings: shared folder, cache, figures
- :mod:`irscales.cli`            the ``irscales`` command line
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("irscales")
except PackageNotFoundError:  # running from a source tree without installation
    __version__ = "0.0.0+src"

__all__ = ["__version__"]
