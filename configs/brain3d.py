"""The 3-D brain init-scale study (DESIGN.md §2.3): ``--config=configs/brain3d.py[:variant]``.

Tokens are the 360 Glasser MMP cortical parcels; true positions their centroids (mm); modules the
12 Cole–Anticevic networks (``learnpe_jax.tasks.atlas``). Default data: the calibrated generative
model on the atlas geometry (``learnpe_jax.tasks.brain_generate``); ``--config.data.path=FILE``
trains on a user's parcellated time series instead (``learnpe_jax.tasks.brain``). Default task:
masked-region reconstruction. Positions are unknown to the model (learned PEs only) unless
``--config.data.coords_known=True``.

Variants (comma-separated, combinable):
  (none)     the CPU default (12 min measured on 2 shared cores): 3 σ × 2 seeds, width 32, 1 block,
             lr 1e-2, batch 8, 2,000 steps.
  smoke      a sub-minute run for tests: 2 σ × 1 seed, a small dataset, a few steps.
  next_step  next-step prediction instead of masked-region reconstruction.
  paper      a study-scale GPU/TPU job (not run here): width 160, 4 blocks, lr 1e-3, batch 32,
             50k steps, the companion's 20 σ × 15 seeds, all models in one vmap.
  pe=NAME    another PE from the catalogue (coordinate PEs need data.coords_known=True).
"""

import ml_collections

from configs import common
from configs.common import parse_variants
from learnpe_jax.tasks.brain_generate import GENERATOR_DEFAULTS


def get_config(arg=None):
  variants = parse_variants(arg)
  config = ml_collections.ConfigDict()
  config.task = "brain"
  config.resume = True

  config.data = ml_collections.ConfigDict()
  config.data.data_dir = "~/.cache/learnpe_jax/tfds"
  # Real data (empty: generated). See learnpe_jax/tasks/brain.py for formats.
  config.data.path = ""               # .npy/.npz/.h5/.mat (T×N or subjects×T×N) or .dtseries.nii
  config.data.array_key = ""          # which array of a .npz/.h5/.mat file
  config.data.names_path = ""         # region names, one per line (matched against coords/labels)
  config.data.coords_path = ""        # N×3 centroids in mm (default: the MMP atlas when it fits)
  config.data.labels_path = ""        # N network labels (default: Cole–Anticevic when from atlas)
  config.data.test_fraction = 0.2     # held-out subjects (or last time segment of one subject)
  # The generator (learnpe_jax/tasks/brain_generate.py; the fields name the cached dataset):
  # Σ = g_global + g_dist·exp(−d/length_scale_mm) + g_net·1[same network] + UUᵀ + private_var·I,
  # g_net calibrated to within_between_ratio; AR(1) with ar_coef; subjects × num_time_points.
  for key, value in GENERATOR_DEFAULTS.items():
    config.data[key] = value
  config.data.mode = "masked"         # 'masked' | 'next_step'
  config.data.mask_fraction = 0.25
  config.data.context_steps = 1
  config.data.max_train_examples = 0  # 0: all (subjects × time points)
  config.data.max_test_examples = 0
  config.data.coords_known = False    # True: the model may read the centroids (coordinate PEs)

  config.model = common.model(variants, width=32, depth=1, mlp_ratio=2, readout="tokens")
  config.optim = common.optim(learning_rate=1e-2)  # 3e-3 left every σ at the no-identity
  #                                                  baseline in 1,500 steps
  config.train = common.train(batch_size=8, num_steps=2000, chunk_steps=50, eval_every=500,
                              log_every=50, eval_batch_size=250, models_per_group=0,
                              parallel_streams=1)  # small models: one vmap
  config.sweep = common.sweep(pe_init_scale=(0.01, 0.1, 1.0), seeds=(0, 1))
  config.analysis = common.analysis()

  if variants.get("next_step"):
    config.data.mode = "next_step"
  if variants.get("smoke"):
    config.data.num_train_subjects = 4
    config.data.num_test_subjects = 2
    config.data.num_time_points = 10
    config.model.width = 16
    config.train.eval_batch_size = 20
    common.schedule(config, num_steps=20, chunk_steps=10, every=10, log_every=10)
    config.sweep.pe_init_scale = (0.02, 2.0)
    config.sweep.seeds = (0,)
  if variants.get("paper"):
    common.paper(config, num_steps=50_000, learning_rate=1e-3)
    config.train.batch_size = 32
  return common.finish(config, variants, ("smoke", "paper", "next_step"))
