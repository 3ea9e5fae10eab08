"""Fer17's figures (irscales.papers.fer17.plots) on a small simulated design, saved by irscales.figures."""

from __future__ import annotations

import numpy as np
import pytest

from irscales.figures import write_figure
from irscales.papers import fer17
from irscales.paths import figures_dir
from irscales.papers.fer17 import sampling




def test_plots_return_figures(random_scores, tmp_path, monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    monkeypatch.setenv("IRSCALES_FIGURES", str(tmp_path))
    scores = random_scores()
    df = sampling.correlation_design(scores, np.random.default_rng(0), (3, 5), (6, 8), 4, no1q=True, progress=False)
    fig = fer17.plot_size_curves(df, "AP vs RBP", variants=("allQ", "no1Q"), title="simulated")
    assert len(fig.axes) == 2
    names = [p.name for p in write_figure(fig, figures_dir("fer17"), "test_simulated")]
    assert names == ["test_simulated.png", "test_simulated.pdf"] and (tmp_path / "fer17" / "test_simulated.png").exists()
    m = df.groupby(["variant", "pair"], observed=True).tau.mean()
    write_figure(fer17.plot_romp(m.loc["allQ"], m.loc["no1Q"]), figures_dir("fer17"), "romp_simulated")
    write_figure(fer17.plot_kde({"a": [0.1, 0.2], "b": [0.2, 0.3]}), figures_dir("fer17"), "kde_simulated")
    with pytest.raises(ValueError, match="no rows"):
        fer17.plot_size_curves(df, "X vs Y")
