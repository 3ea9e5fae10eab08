"""Statistics on score matrices: significance tests between systems, ANOVA with Tukey HSD,
and the sampling designs of correlation experiments."""
