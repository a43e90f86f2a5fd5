"""The training jobs behind the six claims, in one pool so that claims share runs.

CPU scale (``cpu_overrides``): the default model of each config (LST: the ``reduced`` variant of
``configs/grid2d.py``, the first CPU default: puzzles revealed at random, width 64, 2 blocks, lr 1e-3,
batch 128), 5 seeds, LST 2,000 steps (the ``reduced`` variant's 3,000 cut so that the 18 jobs of the
six claims train in about 1 h 40 min on 2 CPU cores, two jobs at a time, with other work sharing the
machine; a first probe, 5 σ × 2 seeds at width 64, used 2,400). Paper scale: the
``:paper`` variant of the same config (the study's 20 σ × 15 seeds, width 160, 4 blocks) with the
job's own overrides.
"""

from __future__ import annotations

from experiments.claims.spec import SEEDS, ClaimJob

LST_SIGMAS = (0.01, 0.1, 0.3, 1.0, 3.0)


def lst_pe(pe: str, label: str, sigmas=None, scrambled: bool = False, name: str = "",
           steps: int = 2000, **overrides) -> ClaimJob:
  """A Latin-square job with PE ``pe``; learnable PEs sweep ``sigmas`` on the CPU."""
  name = name or "lst_" + ("scrambled_" if scrambled else "") + label
  extra = tuple(overrides.items()) + ((("data.scramble_cells", True),) if scrambled else ())
  cpu = (("train.num_steps", steps), ("sweep.seeds", SEEDS)) + (
      (("sweep.pe_init_scale", sigmas),) if sigmas else ())
  return ClaimJob(name, f"configs/grid2d.py:reduced,pe={pe}",
                  label + (" (scrambled)" if scrambled else ""), overrides=extra,
                  cpu_overrides=cpu, paper=steps == 2000)


# Claims 1, 2 (and 3, 6 read parts of it): the learned PE's σ sweep in grid (row-major) order.
LST_LEARNED = lst_pe("learned", "learned", LST_SIGMAS)

# Claim 2: the other PEs at the same setting. Fixed PEs run at σ = 1 (it scales nothing);
# the learnable relative bias at σ = 0.1.
LST_BASELINES = (
    lst_pe("sinusoidal_1d", "sinusoidal_1d"),
    lst_pe("sinusoidal_nd", "sinusoidal_2d"),
    lst_pe("rope", "rope_1d"),
    lst_pe("rope_axial", "rope_axial_2d"),
    lst_pe("rel_bias_clipped", "relative_bias_2d", (0.1,)),
    lst_pe("none", "nope"),
)

# Claim 2 at a 3× longer budget, for the σ on either side of the fit boundary (added after the
# 2,000-step sweep left no σ at ≥ 95% train accuracy): one job per σ, so two run at once.
LST_LONG = tuple(lst_pe("learned", "learned, 6,000 steps", (s,), name=f"lst_learned_6000_s{s:g}",
                        steps=6000) for s in (0.3, 1.0))

# Claim 3: the cells fed in a fixed random order (data.scramble_seed = 0).
LST_SCRAMBLED = (
    lst_pe("learned", "learned", (0.01, 0.3, 3.0), scrambled=True),
    lst_pe("sinusoidal_1d", "sinusoidal_1d", scrambled=True),
    lst_pe("rope", "rope_1d", scrambled=True),
    lst_pe("sinusoidal_nd", "sinusoidal_2d", scrambled=True),
)

# Claim 6: init families at matched norm (every family draws unit variance, times σ; see
# learnpe_jax/pe/initializers.py). 'normal' is LST_LEARNED's σ = 0.1. At matched norm Glorot-uniform
# *is* the uniform family (U(−√3, √3)·σ), so truncated normal takes its place as the fourth family.
FAMILY_SIGMA = 0.1
LST_FAMILIES = tuple(
    lst_pe("learned", f"init_{family}", (FAMILY_SIGMA,), **{"model.pe.init": family})
    for family in ("uniform", "orthogonal", "truncated_normal"))

# Claims 4 and 5: the network simulation and the brain atlas, each config's CPU default, 5 seeds.
NETSIM = ClaimJob("netsim_learned", "configs/netsim.py", "learned",
                  cpu_overrides=(("sweep.pe_init_scale", (0.01, 0.1, 1.0, 3.0)),
                                 ("sweep.seeds", SEEDS)))
# Claim 5 on the real HCP data (the config's default source); the generated-data control keeps the
# pool name of the runs it had before the real data became the default.
BRAIN = ClaimJob("brain_hcp_learned", "configs/brain3d.py", "learned",
                 cpu_overrides=(("sweep.pe_init_scale", (0.01, 0.1, 1.0)), ("sweep.seeds", SEEDS)))
BRAIN_SYNTHETIC = ClaimJob("brain_learned", "configs/brain3d.py:synthetic", "learned",
                           cpu_overrides=(("sweep.pe_init_scale", (0.01, 0.1, 1.0)),
                                          ("sweep.seeds", SEEDS)))

# The pool, in the order its records are kept (``experiments/results/claims/records.jsonl``).
POOL = (LST_LEARNED, *LST_BASELINES, *LST_LONG, *LST_SCRAMBLED, *LST_FAMILIES, NETSIM, BRAIN,
        BRAIN_SYNTHETIC)
