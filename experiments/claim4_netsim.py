"""Claim 4 (network simulation): small σ recovers node geometry and modules and generalises better.

    python -m experiments.claim4_netsim [--lanes=2] [--print] [--scale=paper --print]

``configs/netsim.py`` (64 nodes at hidden random positions in the unit square, 4 spatial modules,
next-step prediction; ``learnpe_jax/tasks/netsim.py``), learned PE at σ ∈ {0.01, 0.1, 1, 3}.
Geometry: PE–position RSA and layout R²; modules: adjusted Rand index of k-means on the PEs against
the module labels and the within/between-module PE similarity ratio; generalisation: R² on held-out
trajectories.

Verdict rule: *small* is σ ≤ 0.1, *large* σ ≥ 1. Three parts, each "every small σ clearly above
every large σ" (one-sided Welch p < 0.05): geometry (RSA), modules (ARI), generalisation (test R²).
Holds when all three pass, holds partly when one or two do, otherwise does not hold at this scale.

Amended (before the verdicts were read again; the runs were not repeated): geometry and module
ARI are judged on each model's own change from its init draw (paired ``K_change = K − K_init``),
not on the raw values, so a PE that starts aligned and loses it is not counted as small σ better.
``python -m experiments.claims --all --rejudge`` recomputes the verdicts from the kept tables.
"""

from __future__ import annotations

import sys

from experiments.claims import cli, figures, jobs, verdicts
from experiments.claims.spec import Claim, Column
from experiments.framework.study import describe

SMALL, LARGE = (0.01, 0.1), (1.0, 3.0)
COLUMNS = (Column("train_r2", "train R²"), Column("test_r2", "test R²"), Column("pe_rsa", "RSA"),
           Column("pe_rsa_init", "RSA at init"), Column("pe_rsa_change", "ΔRSA from init", 2),
           Column("pe:mds_r2", "layout R²"),
           Column("pe:pe_network_ari", "module ARI"), Column("pe:pe_network_ari_init", "ARI at init"),
           Column("pe:pe_network_ari_change", "ΔARI from init", 2),
           Column("pe:pe_within_between_ratio", "within/between", 2))


def verdict(table):
  return verdicts.verdict_from_parts(table, {"geometry": "pe_rsa_change",
                                           "modules": "pe:pe_network_ari_change",
                                           "generalisation": "test_r2"}, SMALL, LARGE)


CLAIM = Claim(
    name="netsim", number=4,
    title="Network simulation: small σ recovers geometry and modules and generalises better",
    statement="On a simulated nonlinear stochastic network whose nodes have hidden positions and "
              "modules, a small-norm learned PE recovers the node geometry and the modules, and "
              "predicts held-out trajectories better than a large-norm one.",
    setting=f"`configs/netsim.py` (64 nodes, 4 modules), learned PE: {describe(jobs.NETSIM.at())} "
            "(20 models in one job).",
    jobs=(jobs.NETSIM,), columns=COLUMNS, verdict=verdict,
    figure=figures.sigma_figure([("pe_rsa", "PE–position RSA"),
                                ("pe:pe_network_ari", "module ARI (k-means on PEs)"),
                                ("test_r2", "test R² (held-out trajectories)")],
                               init_keys={"pe_rsa": "pe_rsa_init",
                                          "pe:pe_network_ari": "pe:pe_network_ari_init"}))

if __name__ == "__main__":
  sys.exit(cli.main(CLAIM))
