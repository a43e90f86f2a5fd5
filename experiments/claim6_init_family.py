"""Claim 6 (LST): the init family matters, not only its scale (normal, uniform, orthogonal, …).

    python -m experiments.claim6_init_family [--lanes=2] [--print] [--scale=paper --print]

Learned PE at σ = 0.1 with four init families drawn at matched norm (each family's unit-variance
draw times σ, so ‖P₀‖_F ≈ σ·√(N·W) for all; ``learnpe_jax/pe/initializers.py``): normal (the σ = 0.1
models of claim 1), uniform, orthogonal (a random semi-orthogonal matrix rescaled) and truncated
normal. Glorot-uniform at matched norm is exactly the uniform family (U(−√3, √3)·σ; the two give
bit-identical draws), so it is not run twice.

Verdict rule: a one-way ANOVA across the four families (``scipy.stats.f_oneway``, 5 seeds each) on
test accuracy, PE–grid RSA and layout R², Bonferroni-corrected (p < 0.05/3). The family matters
(holds) when two or more of the three differ; holds partly when one does; otherwise it does not
hold at this scale.
"""

from __future__ import annotations

import sys

from experiments.claims import cli, figures, jobs
from experiments.claims.spec import Claim, Column
from experiments.framework.study import describe

METRICS = {"test accuracy": "test_accuracy", "RSA": "pe_rsa", "layout R²": "pe:mds_r2"}
COLUMNS = (Column("train_accuracy", "train acc"), Column("test_accuracy", "test acc"),
           Column("pe_rsa", "RSA"), Column("pe_rsa_init", "RSA at init"),
           Column("pe:mds_r2", "layout R²"), Column("pe:effective_dim", "effective dim", 1),
           Column("pe_norm_init", "PE RMS at init"), Column("pe_norm", "PE RMS"))


def keep(record: dict) -> bool:
  return record["job"] != jobs.LST_LEARNED.name or record["pe_init_scale"] == jobs.FAMILY_SIGMA


def verdict(table):
  from scipy import stats
  pvalues = {}
  for name, key in METRICS.items():
    samples = [g[key]["values"] for g in table.groups]
    pvalues[name] = float(stats.f_oneway(*samples).pvalue)
  differ = [n for n, p in pvalues.items() if p < 0.05 / len(METRICS)]
  text = ("ANOVA across families: " + ", ".join(f"{n} p = {p:.3g}" for n, p in pvalues.items())
          + f" (Bonferroni threshold {0.05 / len(METRICS):.3g}). Means: "
          + "; ".join(f"{g['condition']}: test {g['test_accuracy']['mean']:.3f}, RSA "
                      f"{g['pe_rsa']['mean']:.2f}, layout R² {g['pe:mds_r2']['mean']:.2f}"
                      for g in table.groups) + ".")
  if len(differ) >= 2:
    return "holds", text
  if differ:
    return "holds partly", text
  return "does not hold at this scale", text


CLAIM = Claim(
    name="init_family", number=6,
    title="LST: the init family matters, not only its scale",
    statement="At matched init norm, the distribution the learned PE is drawn from (normal, "
              "uniform, orthogonal, truncated normal; Glorot-uniform at matched norm is the "
              "uniform family) changes what it learns and how well it generalises.",
    setting="`configs/grid2d.py:reduced` with `--config.model.pe.init=FAMILY`: "
            f"{describe(jobs.LST_FAMILIES[0].at())} per family.",
    jobs=(jobs.LST_LEARNED,) + jobs.LST_FAMILIES, columns=COLUMNS, verdict=verdict,
    figure=figures.bars_figure([("test_accuracy", "test accuracy"), ("pe_rsa", "PE–grid RSA"),
                               ("pe:mds_r2", "layout R²")]),
    keep=keep, rename={"learned": "init_normal"})

if __name__ == "__main__":
  sys.exit(cli.main(CLAIM))
