"""Extrapolation on real text: ``--config=configs/textlm.py[:variant,...]``.

A byte-level causal language model trained on the Python standard library's own source (a shipped
snapshot of 69 modules, PSF licence; ``learnpe_jax/tasks/textlm/``), context L = 128, and scored
on 10 held-out modules at 1×, 2×, 4× and 8× L: the experiment of Press et al. (ALiBi, "Train
Short, Test Long", ICLR 2022) at a scale a CPU trains. The summary's ``perplexity_by_length``
holds bits per byte and perplexity per length; a PE with a table of L rows (the learned one)
gives no score beyond L.

Variants (comma-separated, combinable):
  (none)          a 2-block causal decoder (width 64, 4 heads, pre-LN), the learned table at
                  σ ∈ {0.1, 2} × seeds 0–1 (4 models), 1,000 steps of 32 windows: 4,000
                  model-steps (the run's timing.json records its wall time and model-steps/s).
  pe=NAME         another PE of the catalogue that a decoder takes (``python -m learnpe_jax.pe``),
                  e.g. pe=alibi, pe=rope, pe=sinusoidal_1d, pe=none.
  smoke           a sub-minute run for tests: L = 32, width 32, 300 steps, σ ∈ {0.1, 2}, seed 0.
"""

import ml_collections

from configs import common
from configs.common import parse_variants


def get_config(arg=None):
  variants = parse_variants(arg)
  config = ml_collections.ConfigDict()
  config.task = "textlm"
  config.resume = True

  config.data = ml_collections.ConfigDict()
  config.data.data_dir = "~/.cache/learnpe_jax/tfds"
  config.data.context_length = 128          # L: the training context
  config.data.eval_multiples = (1, 2, 4, 8)  # held-out scores at k·L (each divides the largest)
  config.data.num_train = 4096               # training windows of L + 1 bytes
  config.data.num_eval_segments = 64         # held-out segments of 8L + 1 bytes (the same bytes
                                             # are predicted at every k)
  config.data.seed = 0

  config.model = common.decoder(variants, width=64, depth=2, num_heads=4)
  config.optim = common.optim(learning_rate=1e-3)
  config.train = common.train(batch_size=32, num_steps=1000, chunk_steps=250, eval_every=500,
                              log_every=250, eval_batch_size=256)
  config.sweep = common.sweep(pe_init_scale=(0.1, 2.0), seeds=(0, 1))
  config.analysis = common.analysis()

  if variants.get("smoke"):
    config.data.context_length = 32
    config.data.num_train = 1024
    config.data.num_eval_segments = 16
    config.model.width = 32
    config.optim.learning_rate = 3e-3
    common.schedule(config, num_steps=300, chunk_steps=100, every=300, log_every=100)
    config.sweep.seeds = (0,)
  return common.finish(config, variants, ("smoke",))
