"""learnpe_jax against PyTorch eager, side by side: ``python benchmarks/vs_torch.py [--num_models=16]``.

One process builds the config's real trainer (``learnpe_jax.throughput.build``: K models, compiled
once) and the PyTorch reference of the same model (``torch_reference.py``, one model, eager), then
alternates timed windows of the two for ``--rounds`` rounds. These machines drift by ±25% over
minutes; alternating windows see the same drift, so the per-round ratio is what to read (the
median is printed). One JSON line last:
  jax_model_steps_per_sec, torch_model_steps_per_sec   per round
  ratio_per_round, ratio_median                        JAX ÷ PyTorch
  train_flops_per_model_step, model_flops_per_model_step, mfu_median, hfu_median
                                                       as in ``learnpe_jax.throughput`` (the matmul
                                                       peak measured in the same process)
  compile_sec, peak_rss_mb, num_models, models_per_group, parallel_streams
Needs ``pip install torch`` (an optional extra, not a dependency of learnpe_jax).
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import sys

from absl import app
from absl import flags

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.dirname(_HERE)]  # torch_reference beside this file; configs/
import torch_reference  # noqa: E402  (benchmarks/, beside this file)

from learnpe_jax import throughput  # noqa: E402

_ROUNDS = flags.DEFINE_integer("rounds", 5, "Alternating rounds (one window of each per round).")
_TORCH_STEPS = flags.DEFINE_integer("torch_steps", 40, "PyTorch steps per timed window.")
# --config (default configs/grid2d.py:paper here), --num_models, --chunk_steps (steps per
# learnpe_jax window), --models_per_group, --parallel_streams: the flags of learnpe_jax.throughput.
flags.FLAGS.set_default("config", "configs/grid2d.py:paper")
flags.FLAGS.set_default("chunk_steps", 5)


def main(argv):
  del argv
  config = throughput.config_from_flags()
  k = flags.FLAGS.num_models
  trainer, state, compiled, compile_sec, flops = throughput.build(config, k)
  m = config.model
  torch_step = torch_reference.make_step(m.width, m.depth, config.train.batch_size)
  _, state = throughput.time_chunks(compiled, state, 1)  # warm-up
  torch_reference.time_steps(torch_step, 3)
  jax_rates, torch_rates = [], []
  for r in range(_ROUNDS.value):
    elapsed, state = throughput.time_chunks(compiled, state, 1)
    jax_rates.append(k * config.train.chunk_steps / elapsed)
    torch_rates.append(torch_reference.time_steps(torch_step, _TORCH_STEPS.value))
    print(f"round {r}: learnpe_jax {jax_rates[-1]:.2f}  torch {torch_rates[-1]:.2f} model-steps/s  "
          f"ratio {jax_rates[-1] / torch_rates[-1]:.2f}", flush=True)
  peak = throughput.matmul_peak_gflops()
  ratios = [j / t for j, t in zip(jax_rates, torch_rates)]
  print(json.dumps({
      "jax_model_steps_per_sec": [round(x, 3) for x in jax_rates],
      "torch_model_steps_per_sec": [round(x, 3) for x in torch_rates],
      "ratio_per_round": [round(x, 3) for x in ratios],
      "ratio_median": round(statistics.median(ratios), 3),
      "train_flops_per_model_step": flops["train"],
      "model_flops_per_model_step": flops["model"],
      "matmul_peak_gflops": round(peak, 2),
      "mfu_median": round(statistics.median(jax_rates) * flops["model"] / 1e9 / peak, 3),
      "hfu_median": round(statistics.median(jax_rates) * flops["train"] / 1e9 / peak, 3),
      "compile_sec": round(compile_sec, 2),
      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
      "num_models": k, "models_per_group": trainer.layout.models_per_group,
      "parallel_streams": trainer.layout.parallel_streams, "torch": torch_reference.torch.__version__,
  }))


if __name__ == "__main__":
  app.run(main)
