"""The Latin Square Task (2-D grid) init-scale study: ``--config=configs/grid2d.py[:variant,...]``.

Variants (comma-separated, combinable):
  (none)   the CPU default, chosen to show the study's picture in under 20 minutes on 2 cores
           (``experiments/cpu_default.py``, RESULTS.md "Probes for a CPU default"): the companion's
           own 9,000 puzzles and split (``data.generator='companion'``) with its weight init
           (PyTorch's, ``model.weight_init='torch'``), width 64, 4 blocks, lr 3e-4, 4,000 steps,
           σ ∈ {0.1, 0.2, 0.5, 1, 1.5, 2} × 3 seeds. (Before the probe ``companion_default`` met
           the aim it trained on puzzles made the companion code's way, ``'pluck'``, with Flax's
           init; the PE benchmark's LST rows ran there and pin those two fields.)
  reduced  the first CPU default, the model the LST claims of RESULTS.md and the earlier probes ran
           (the claims at 2,000 steps and 5 seeds, ``experiments/claims/jobs.py``): puzzles revealed
           at random (``'reveal'``), width 64, 2 blocks, lr 1e-3, 3,000 steps, σ ∈ {0.01, 0.03,
           0.1, 0.3, 1, 3} × 3 seeds.
  smoke    a sub-minute run for tests (the ``reduced`` model): 2 σ × 2 seeds, a small dataset, a
           few hundred steps.
  paper    the companion study's scale: width 160, 4 blocks, lr 1e-4, 15 seeds, 20 σ, ~250k steps.
  companion  the companion's model and optimizer (as ``paper``) to its first logged checkpoint,
           epoch 200 ≈ 12,800 steps, on the companion's own 9,000 puzzles and split
           (``data.generator='companion'``), its weights initialised as PyTorch does
           (``model.weight_init='torch'``), evaluated and checkpointed every 1,600 steps;
           σ ∈ {0.01, 0.03, 0.1, 0.2, 0.5, 1, 1.5, 2} × seeds 0–2 (a CPU job of hours:
           ``experiments/companion.py`` runs it in resumable pieces).
  pe=NAME  another PE from the catalogue (``python -m learnpe_jax.pe``), with its default fields.
"""

import ml_collections

from configs import common
from configs.common import PAPER_SIGMAS, parse_variants  # noqa: F401  (re-exported)


def get_config(arg=None):
  variants = parse_variants(arg)
  config = ml_collections.ConfigDict()
  config.task = "lst"
  config.resume = True  # False: move an existing run in the workdir aside and start over

  config.data = ml_collections.ConfigDict()
  config.data.data_dir = "~/.cache/learnpe_jax/tfds"  # generated once, reused
  config.data.num_per_level = 3000  # puzzles per complexity level (the study's 3,000)
  config.data.test_fraction = 0.1   # 'reveal', 'companion': stratified by level; 'pluck': plain
  config.data.seed = 0              # puzzle generation and split
  config.data.scramble_cells = False  # feed the 16 cells in a fixed random order
  config.data.scramble_seed = 0
  # 'companion' (the companion's own 9,000 shipped puzzles and split; num_per_level and
  # test_fraction fixed) | 'pluck' (made the companion code's way) | 'reveal' (cells at random)
  config.data.generator = "companion"
  config.data.eval_puzzles = "human"  # also scored at every eval: 'human' (the 108 puzzles of the
  #                                     human experiment), a puzzle CSV path, or '' (none)

  # Companion: width 160, 4 blocks, lr 1e-4 (too slow for a CPU budget).
  config.model = common.model(variants, width=64, depth=4, mlp_ratio=4, readout="last")
  config.model.weight_init = "torch"  # the companion code's (torch.nn's) initial weights
  config.optim = common.optim(learning_rate=3e-4)
  # Models share the machine as the platform suits (docs/performance.md): train.models_per_group
  # and train.parallel_streams None.
  config.train = common.train(batch_size=128, num_steps=4000, chunk_steps=100, eval_every=500,
                              log_every=100, eval_batch_size=1024)
  config.sweep = common.sweep(pe_init_scale=(0.1, 0.2, 0.5, 1.0, 1.5, 2.0), seeds=(0, 1, 2))
  config.analysis = common.analysis()

  if variants.get("reduced") or variants.get("smoke"):
    config.data.generator = "reveal"
    config.model.weight_init = "flax"
    config.model.depth = 2
    config.optim.learning_rate = 1e-3
    config.train.num_steps = 3000
    config.sweep.pe_init_scale = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)
  if variants.get("smoke"):
    config.data.num_per_level = 200
    config.model.width = 32
    common.schedule(config, num_steps=200, chunk_steps=50, every=100, log_every=50)
    config.sweep.pe_init_scale = (0.02, 2.0)
    config.sweep.seeds = (0, 1)
  if variants.get("paper"):  # ≈ 4,000 epochs of 8,100 puzzles at batch 128
    common.paper(config, num_steps=250_000, learning_rate=1e-4)
  if variants.get("companion"):  # epoch 200 of 8,100 puzzles at batch 128 (63 steps per epoch)
    common.paper(config, num_steps=12_800, learning_rate=1e-4)
    common.schedule(config, num_steps=12_800, chunk_steps=200, every=1600, log_every=200)
    config.data.generator = "companion"
    config.model.weight_init = "torch"  # the companion code's weights start as torch.nn's do
    config.sweep.pe_init_scale = (0.01, 0.03, 0.1, 0.2, 0.5, 1.0, 1.5, 2.0)
    config.sweep.seeds = (0, 1, 2)
  return common.finish(config, variants, ("reduced", "smoke", "paper", "companion"))
