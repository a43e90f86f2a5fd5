"""The Latin Square Task (2-D grid) init-scale study: ``--config=configs/grid2d.py[:variant,...]``.

Variants (comma-separated, combinable):
  (none)   the CPU default: 6 σ × 3 seeds, width 64, 2 blocks, lr 1e-3 (see README for timing).
  smoke    a sub-minute run for tests: 2 σ × 2 seeds, a small dataset, a few hundred steps.
  paper    the companion study's scale: width 160, 4 blocks, lr 1e-4, 15 seeds, 20 σ, ~250k steps.
  pe=NAME  another PE from the catalogue (``python -m learnpe_jax.pe``), with its default fields.
"""

import ml_collections

from learnpe_jax.pe.registry import default_pe_config, get_spec


# The companion study's σ grid: 0.1…2.0 plus 0.01, 0.05, 3.0 (20 values).
PAPER_SIGMAS = (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5,
                2.0, 2.5, 3.0)


def parse_variants(arg):
  """'smoke,pe=rope' -> {'smoke': True, 'pe': 'rope'}."""
  out = {}
  for part in (arg or "").split(","):
    part = part.strip()
    if part:
      key, _, value = part.partition("=")
      out[key] = value if value else True
  return out


def get_config(arg=None):
  variants = parse_variants(arg)
  config = ml_collections.ConfigDict()
  config.task = "lst"
  config.resume = True  # False: move an existing run in the workdir aside and start over

  config.data = ml_collections.ConfigDict()
  config.data.data_dir = "~/.cache/learnpe_jax/tfds"  # generated once, reused
  config.data.num_per_level = 3000  # puzzles per complexity level (the study's 3,000)
  config.data.test_fraction = 0.1   # stratified by level
  config.data.seed = 0              # puzzle generation and split
  config.data.scramble_cells = False  # feed the 16 cells in a fixed random order
  config.data.scramble_seed = 0

  config.model = ml_collections.ConfigDict()
  config.model.width = 64           # companion: 160
  config.model.depth = 2            # companion: 4
  config.model.num_heads = 1
  config.model.mlp_ratio = 4
  config.model.readout = "last"     # 'last' | 'mean' | 'query'
  config.model.pe_placement = "every_block"  # 'every_block' | 'input'
  config.model.pe_sharing = "separate"       # 'separate' | 'shared'
  config.model.norm = "post"        # 'post' (companion) | 'pre'
  config.model.dtype = "float32"
  config.model.pe = default_pe_config(variants.get("pe", "learned"))

  config.optim = ml_collections.ConfigDict()
  config.optim.learning_rate = 1e-3  # companion: 1e-4 (too slow for a CPU budget)
  config.optim.weight_decay = 0.0
  config.optim.b1 = 0.9
  config.optim.b2 = 0.999
  config.optim.eps = 1e-8
  config.optim.grad_clip_norm = 0.0  # 0: off
  config.optim.warmup_steps = 0

  config.train = ml_collections.ConfigDict()
  config.train.batch_size = 128
  config.train.num_steps = 3000
  config.train.chunk_steps = 100     # steps per compiled lax.scan
  # Models vmapped together; groups run one after another in the same program (0: all models in
  # one vmap). On a CPU, one model at a time uses the caches best (see README, Performance); on a
  # GPU, vmap them all.
  config.train.models_per_group = 1
  config.train.eval_every = 500      # multiple of chunk_steps
  config.train.checkpoint_every = 500  # multiple of chunk_steps
  config.train.log_every = 100
  config.train.eval_batch_size = 1024

  config.sweep = ml_collections.ConfigDict()
  config.sweep.pe_init_scale = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
  config.sweep.seeds = (0, 1, 2)
  config.sweep.learning_rate = ()    # empty: optim.learning_rate for every model

  config.analysis = ml_collections.ConfigDict()
  config.analysis.distance = "euclidean"  # true-distance metric for RSA

  if variants.get("smoke"):
    config.data.num_per_level = 200
    config.model.width = 32
    config.model.depth = 2
    config.train.num_steps = 200
    config.train.chunk_steps = 50
    config.train.eval_every = 100
    config.train.checkpoint_every = 100
    config.train.log_every = 50
    config.sweep.pe_init_scale = (0.02, 2.0)
    config.sweep.seeds = (0, 1)
  if variants.get("paper"):
    config.model.width = 160
    config.model.depth = 4
    config.optim.learning_rate = 1e-4
    config.train.num_steps = 250_000   # ≈ 4,000 epochs of 8,100 puzzles at batch 128
    config.train.chunk_steps = 500
    config.train.eval_every = 5000
    config.train.checkpoint_every = 5000
    config.train.log_every = 500
    config.train.models_per_group = 0  # a GPU/TPU job: all models in one vmap
    config.sweep.pe_init_scale = PAPER_SIGMAS
    config.sweep.seeds = tuple(range(15))
  if not get_spec(config.model.pe.name).learnable:
    config.sweep.pe_init_scale = (1.0,)  # nothing to scale: one σ, the seeds still vary
  unknown = set(variants) - {"smoke", "paper", "pe"}
  if unknown:
    raise ValueError(f"unknown config variant(s) {sorted(unknown)}; allowed: smoke, paper, pe=NAME")
  return config
