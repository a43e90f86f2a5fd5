"""Length generalisation with a causal decoder: ``--config=configs/length1d.py[:variant,...]``.

The problems of Kazemnejad et al. (NeurIPS 2023; ``learnpe_jax/tasks/lengthgen/generate.py``):
train on lengths n ≤ L = 8, score exact match on every n ≤ 2L = 16 (accuracy per length is the
per-level accuracy ``test_accuracy_by_level``: n=1 … n=16).

Variants (comma-separated, combinable):
  (none)          copy, a 2-block causal decoder (width 64, 4 heads, pre-LN), the learned table at
                  σ ∈ {0.1, 2} × seeds 0–2, 3,000 steps: about 4 minutes on 2 CPU cores.
  problem=NAME    'copy' (default), 'reverse', 'addition', 'parity', 'sorting', 'summation',
                  'polynomial' or 'lego' (``generate.PROBLEMS``).
  pe=NAME         another PE of the catalogue that a decoder takes (``python -m learnpe_jax.pe``).
  smoke           a sub-minute run for tests: L = 4, width 32, 200 steps, σ ∈ {0.02, 2} × 2 seeds.
"""

import ml_collections

from configs import common
from configs.common import parse_variants


def get_config(arg=None):
  variants = parse_variants(arg)
  config = ml_collections.ConfigDict()
  config.task = "lengthgen"
  config.resume = True

  config.data = ml_collections.ConfigDict()
  config.data.data_dir = "~/.cache/learnpe_jax/tfds"
  config.data.problem = variants.get("problem", "copy")  # one of generate.PROBLEMS
  config.data.max_train_length = 8      # L: training lengths n = 1..L; test n = 1..2L
  config.data.num_train = 20_000        # training sequences (n uniform in 1..L)
  config.data.num_test_per_length = 100
  config.data.seed = 0

  config.model = common.decoder(variants, width=64, depth=2, num_heads=4)
  config.optim = common.optim(learning_rate=1e-3)
  config.train = common.train(batch_size=64, num_steps=3000, chunk_steps=100, eval_every=500,
                              log_every=100, eval_batch_size=800)
  config.sweep = common.sweep(pe_init_scale=(0.1, 2.0), seeds=(0, 1, 2))
  config.analysis = common.analysis()

  if variants.get("smoke"):
    config.data.max_train_length = 4
    config.data.num_train = 2000
    config.data.num_test_per_length = 20
    config.model.width = 32
    common.schedule(config, num_steps=200, chunk_steps=50, every=100, log_every=50)
    config.sweep.pe_init_scale = (0.02, 2.0)
    config.sweep.seeds = (0, 1)
  return common.finish(config, variants, ("smoke", "problem"))
