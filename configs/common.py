"""What the three experiment configs share: variant parsing, the model/optimizer/train/sweep blocks,
the study-scale (``paper``) settings and the final checks. Each config keeps only what is its own.

Configs are plain data: they import ml_collections and plain constants only (no Flax, no PE
registry; ``tests/test_plain_configs.py``). ``config.model.pe`` is the PE's ``name`` and its fields
with their defaults from ``configs/pe_fields.py`` (generated from the registry); the trainer checks
them when it builds the model. ``pe=NAME`` in the config string and ``--config.model.pe.name=NAME``
on the command line are the same (``learnpe_jax.cli.pe_name_as_variant``): every config's
``pe=NAME`` variant is also ``--config.model.pe.name=NAME``."""

from __future__ import annotations

import ml_collections

from configs.pe_fields import FIXED_PES, PE_FIELDS

# The companion study's σ grid: 0.1…2.0 plus 0.01, 0.05, 3.0 (20 values).
PAPER_SIGMAS = (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5,
                2.0, 2.5, 3.0)
PAPER_SEEDS = tuple(range(15))


def parse_variants(arg):
  """'smoke,pe=rope' -> {'smoke': True, 'pe': 'rope'}."""
  out = {}
  for part in (arg or "").split(","):
    part = part.strip()
    if part:
      key, _, value = part.partition("=")
      out[key] = value if value else True
  return out


def model(variants, *, width: int, depth: int, mlp_ratio: int, readout: str):
  """The encoder: post-LN, one head, the PE of ``pe=NAME`` (default: learned) at every block."""
  m = ml_collections.ConfigDict()
  # 'transformer' (the encoder) | 'lstm' | 'gru' | 'mlp' (baselines with an additive PE:
  # learnpe_jax/models/baselines.py; width, depth, mlp_ratio, readout, pe and dtype apply to them)
  m.kind = "transformer"
  m.bidirectional = False           # lstm/gru: a forward and a backward RNN per layer
  m.width = width
  m.depth = depth
  m.num_heads = 1
  m.mlp_ratio = mlp_ratio
  # 'last' | 'mean' | 'query' | 'token' (an appended readout token, the companion's released
  # models; index PEs only) for classification, 'tokens' (one output per token)
  m.readout = readout
  m.mlp_final_activation = "none"   # 'none' | 'gelu' (the companion code's MLP ends with a GELU)
  m.causal = False                  # True: a decoder (token i attends to tokens j ≤ i only)
  # Weights outside the PE: 'flax' (LeCun normal, zero biases) | 'torch' (PyTorch's defaults, as
  # the companion code gets them; learnpe_jax/models/weight_init.py)
  m.weight_init = "flax"
  m.pe_placement = "every_block"    # 'every_block' | 'input'
  m.pe_sharing = "separate"         # 'separate' | 'shared'
  m.norm = "post"                   # 'post' (companion) | 'pre'
  # Dropout on each block's input right after its PE is added (the companion code's 2-D sinusoid
  # has 0.1; its learned PE none); with pe_dropout_at_eval it stays on when the model is scored,
  # as the companion's training script leaves it (it never calls model.eval()).
  m.pe_dropout = 0.0
  m.pe_dropout_at_eval = False
  m.dtype = "float32"
  # Exact rewrites that skip work (same function, fewer FLOPs; False: the plain computation):
  # readout 'last' → the last block computes the last token only; post-norm → the first block's
  # q/k/v projections factor through the token features.
  m.exact_shortcuts = True
  # Randomized positions (Ruoss et al. 2023): 0 = off; M > 0: at every training step each example's
  # positions are N distinct indices drawn from 0 … M − 1 and sorted (the PE's table gets M rows);
  # evaluation reads the true positions 0 … N − 1. 1-D sequence tasks only.
  m.randomized_positions = 0
  # RoPE context extension at evaluation only (tasks that score longer held-out sets, textlm):
  # each method ('linear', 'ntk', 'dynamic_ntk', 'yarn', ...) scores those sets again with the
  # rotary PE scaled by n / N from the trained length N (learnpe_jax/training/length_eval.py).
  m.eval_rope_scaling = ()
  m.pe = pe(variants.get("pe", "learned"))
  return m


def decoder(variants, *, width: int, depth: int, num_heads: int):
  """A causal decoder, pre-LN, one output per token: the length tasks' model (``model`` with
  those fields set)."""
  m = model(variants, width=width, depth=depth, mlp_ratio=4, readout="tokens")
  m.num_heads = num_heads
  m.norm = "pre"
  m.causal = True
  return m


def pe(name: str):
  """config.model.pe: PE ``name`` with its fields at their defaults (none for a PE the table does
  not list, e.g. one registered outside the package: the trainer fills them in, and refuses an
  unknown name)."""
  return ml_collections.ConfigDict({"name": name, **PE_FIELDS.get(name, {})})


def optim(learning_rate: float):
  """AdamW (optax), no weight decay, no clipping, no warm-up by default (the companion's);
  ``name='sgd'`` gives SGD with heavy-ball ``momentum`` (the study's optimizer ablation)."""
  o = ml_collections.ConfigDict()
  o.name = "adamw"                  # 'adamw' | 'sgd'
  o.learning_rate = learning_rate
  o.momentum = 0.9                  # sgd only
  o.weight_decay = 0.0
  o.b1 = 0.9
  o.b2 = 0.999
  o.eps = 1e-8
  o.grad_clip_norm = 0.0  # 0: off
  o.warmup_steps = 0
  o.pe_lr_scale = 1.0     # the PE's parameters step pe_lr_scale × the learning rate
  return o


def train(*, batch_size: int, num_steps: int, chunk_steps: int, eval_every: int, log_every: int,
          eval_batch_size: int, models_per_group: int | None = None,
          parallel_streams: int | None = None):
  """The host loop. How the models share the machine (results equal up to float roundoff):
  ``models_per_group`` models train together, groups one after another in the same program (0:
  all in one group); a group runs as ``parallel_streams`` independent vmaps, which a CPU runs
  concurrently. None (the default): chosen by platform (``training.layout.layout``): on a CPU
  groups of 2 as 2 streams, elsewhere one vmap of every model. Checkpoints go with the evals."""
  t = ml_collections.ConfigDict()
  t.batch_size = batch_size
  t.num_steps = num_steps
  t.chunk_steps = chunk_steps        # steps per compiled lax.scan
  # Typed references: None is a value, and a command-line override still parses as an int.
  t.models_per_group = ml_collections.FieldReference(models_per_group, field_type=int)
  t.parallel_streams = ml_collections.FieldReference(parallel_streams, field_type=int)
  t.eval_every = eval_every          # multiple of chunk_steps
  t.checkpoint_every = eval_every    # multiple of chunk_steps
  t.log_every = log_every
  t.eval_batch_size = eval_batch_size
  # A sequence task trains on its sequences cut after the longest one's last scored token (the
  # same function under a causal mask, about half the work on a length task; training/trim.py).
  t.trim_padding = False
  return t


def schedule(config, *, num_steps: int, chunk_steps: int, every: int, log_every: int) -> None:
  """Set the step count and the chunk/eval/checkpoint/log cadence (variants change them together)."""
  t = config.train
  t.num_steps, t.chunk_steps, t.log_every = num_steps, chunk_steps, log_every
  t.eval_every = t.checkpoint_every = every


def sweep(pe_init_scale: tuple, seeds: tuple):
  s = ml_collections.ConfigDict()
  s.pe_init_scale = tuple(pe_init_scale)
  s.seeds = tuple(seeds)
  s.learning_rate = ()               # empty: optim.learning_rate for every model
  return s


def analysis():
  a = ml_collections.ConfigDict()
  a.distance = "euclidean"           # true-distance metric for RSA
  return a


def paper(config, *, num_steps: int, learning_rate: float) -> None:
  """The study's scale, a GPU/TPU job: the companion's model (width 160, 4 blocks), its 20 σ × 15
  seeds, all models in one vmap."""
  config.model.width = 160
  config.model.depth = 4
  config.model.mlp_ratio = 4
  config.optim.learning_rate = learning_rate
  schedule(config, num_steps=num_steps, chunk_steps=500, every=5000, log_every=500)
  config.train.models_per_group = None  # by platform: one vmap on a GPU/TPU, streams on a CPU
  config.train.parallel_streams = None
  config.sweep.pe_init_scale = PAPER_SIGMAS
  config.sweep.seeds = PAPER_SEEDS


def finish(config, variants, allowed: tuple[str, ...]):
  """Fixed PEs get one σ (it scales nothing; the seeds still vary); unknown variants are refused."""
  if config.model.pe.name in FIXED_PES:
    config.sweep.pe_init_scale = (1.0,)
  unknown = set(variants) - set(allowed) - {"pe"}
  if unknown:
    raise ValueError(f"unknown config variant(s) {sorted(unknown)}; allowed: "
                     f"{', '.join(allowed)}, pe=NAME")
  return config
