"""The network-simulation init-scale study: ``--config=configs/netsim.py[:variant]``.

The generative model and the task: docs/design.md, "The network simulation".

A nonlinear stochastic network of 64 nodes at hidden random positions in the unit square, in 4
spatial modules (``learnpe_jax.tasks.netsim.task``); every node is a token; the model predicts every
node's next state (or reconstructs masked nodes). Learned PE, σ swept; PE–geometry RSA against the
hidden node positions and modularity against the module labels.

Variants (comma-separated, combinable):
  (none)   the CPU default (15 min measured on 2 shared cores): 4 σ × 2 seeds, width 32, 2 blocks,
           1,500 steps.
  smoke    a sub-minute run for tests: 2 σ × 2 seeds, a small dataset, a few dozen steps.
  masked   masked-node reconstruction instead of next-step prediction.
  paper    a study-scale GPU/TPU job (not run here): width 160, 4 blocks, lr 3e-4, 50k steps,
           the companion's 20 σ × 15 seeds, all models in one vmap.
  pe=NAME  another PE from the catalogue (``python -m learnpe_jax.pe``), with its default fields.
"""

import ml_collections

from configs import common
from configs.common import parse_variants
from learnpe_jax.tasks.netsim.defaults import GENERATOR_DEFAULTS


def get_config(arg=None):
  variants = parse_variants(arg)
  config = ml_collections.ConfigDict()
  config.task = "netsim"
  config.resume = True

  config.data = ml_collections.ConfigDict()
  config.data.data_dir = "~/.cache/learnpe_jax/tfds"
  # The generator (fields: learnpe_jax/tasks/netsim/generate.py; they name the dataset).
  for key, value in GENERATOR_DEFAULTS.items():
    config.data[key] = value
  # num_nodes=64, dim=2, layout='random' (unit square) | 'lattice'; num_modules=4 (0: none),
  # module_assignment='spatial' | 'random'; coupling g_dist·exp(−d/length_scale) + g_module·1[same
  # module], coupling_sign='balanced' | 'positive' | 'random', W scaled to spectral_radius;
  # a_{t+1} = (1−alpha)·a_t + alpha·tanh(W a_t + b) + noise_sd·ε, b ~ N(0, bias_sd²).
  config.data.mode = "next_step"      # 'next_step' | 'masked'
  config.data.context_steps = 1       # next_step: past states per token (token features)
  config.data.mask_fraction = 0.25    # masked: fraction of nodes masked per example
  config.data.max_train_examples = 0  # 0: all (trajectories × steps)
  config.data.max_test_examples = 0
  config.data.coords_known = True     # the model may read node coordinates (coordinate PEs)

  config.model = common.model(variants, width=32, depth=2, mlp_ratio=4, readout="tokens")
  config.optim = common.optim(learning_rate=1e-3)
  config.train = common.train(batch_size=64, num_steps=1500, chunk_steps=100, eval_every=500,
                              log_every=100, eval_batch_size=512, models_per_group=0,
                              parallel_streams=1)  # small models: one vmap
  config.sweep = common.sweep(pe_init_scale=(0.01, 0.1, 1.0, 3.0), seeds=(0, 1))
  config.analysis = common.analysis()

  if variants.get("masked"):
    config.data.mode = "masked"
  if variants.get("smoke"):
    config.data.num_nodes = 16
    config.data.num_train_trajectories = 4
    config.data.num_test_trajectories = 2
    config.data.trajectory_length = 40
    config.data.burn_in = 20
    config.data.num_modules = 2
    config.model.width = 16
    config.train.batch_size = 16
    config.train.eval_batch_size = 64
    common.schedule(config, num_steps=40, chunk_steps=20, every=20, log_every=20)
    config.sweep.pe_init_scale = (0.02, 2.0)
    config.sweep.seeds = (0, 1)
  if variants.get("paper"):
    common.paper(config, num_steps=50_000, learning_rate=3e-4)
  return common.finish(config, variants, ("smoke", "paper", "masked"))
