"""Throughput benchmark of the real training path:
``python -m learnpe_jax.throughput --config=... --num_models=K``.

Builds the config's task, model and ``Trainer`` (the code ``loop.py`` runs), compiles one chunk,
times ``--chunks`` more, and prints one JSON line last. The timed window is short by default: chunks
of ``DEFAULT_CHUNK_STEPS`` steps (the config's ``train.chunk_steps`` when smaller; ``--chunk_steps``
sets it), so the study-scale config answers in minutes on a CPU, not the hour its 500-step chunks
take. The JSON fields:
  model_steps_per_sec         models × steps per second (the sweep's throughput)
  examples_per_sec            model_steps_per_sec × batch size
  train_flops_per_model_step  FLOPs the compiled step executes (XLA's cost analysis of a one-step
                              chunk ÷ K)
  model_flops_per_model_step  FLOPs of the plain computation of the same step
                              (``model.exact_shortcuts=False``; what the PyTorch reference runs)
  achieved_gflops             train_flops_per_model_step × model_steps_per_sec / 1e9
  matmul_peak_gflops          a dense 2048² float32 matmul measured in the same process (the
                              practical ceiling of this machine)
  mfu                         model FLOPs utilisation (PaLM's definition, Chowdhery et al. 2022,
                              App. B): model_flops_per_model_step × rate ÷ matmul peak
  hfu                         hardware FLOPs utilisation: achieved_gflops ÷ matmul peak
  compile_sec, peak_rss_mb, num_models, devices
"""

from __future__ import annotations

import json
import resource
import sys
import time

from absl import app
from absl import flags
import jax
import jax.numpy as jnp
import numpy as np
from ml_collections import config_flags

_CONFIG = config_flags.DEFINE_config_file("config", "configs/grid2d.py", "Config file.")
_NUM_MODELS = flags.DEFINE_integer("num_models", 16, "Models trained at once (vmapped).")
_CHUNKS = flags.DEFINE_integer("chunks", 3, "Timed chunks after the compile chunk.")
DEFAULT_CHUNK_STEPS = 20
_CHUNK_STEPS = flags.DEFINE_integer(
    "chunk_steps", None, "Steps per timed chunk (default: config.train.chunk_steps, at most "
    f"{DEFAULT_CHUNK_STEPS}).")
_GROUP = flags.DEFINE_integer("models_per_group", None,
                              "Override config.train.models_per_group (0: all models in one vmap).")
_STREAMS = flags.DEFINE_integer("parallel_streams", None,
                                "Override config.train.parallel_streams.")


def matmul_peak_gflops(n: int = 2048, repeats: int = 10) -> float:
  a = jax.random.normal(jax.random.PRNGKey(0), (n, n), jnp.float32)
  f = jax.jit(lambda x: x @ x)
  f(a).block_until_ready()
  t = time.perf_counter()
  for _ in range(repeats):
    out = f(a)
  out.block_until_ready()
  return 2 * n**3 * repeats / (time.perf_counter() - t) / 1e9


def build(config, num_models: int):
  """The config's trainer for ``num_models`` models (σ spread over 0.01–3), its initial state, the
  compiled chunk, its compile time and XLA's FLOPs per model-step."""
  from learnpe_jax.tasks.registry import load_task
  from learnpe_jax.training import config_validation
  from learnpe_jax.training.sweep import model_axis
  from learnpe_jax.training.compiled import Trainer

  config = config.copy_and_resolve_references()
  config.sweep.pe_init_scale = tuple(np.geomspace(0.01, 3.0, num_models).round(5).tolist())
  config.sweep.seeds = (0,)
  config.sweep.learning_rate = ()
  t = config.train  # only chunks run here: keep the host-loop cadences valid for any chunk size
  t.num_steps = t.eval_every = t.checkpoint_every = t.log_every = t.chunk_steps
  config_validation.validate(config)
  task = load_task(config)
  trainer = Trainer(config, task, model_axis(config))
  state = trainer.init()
  t0 = time.perf_counter()
  compiled = trainer.train_chunk.lower(state).compile()
  compile_sec = time.perf_counter() - t0
  flops = {"train": xla_flops_per_model_step(config, task),
           "model": xla_flops_per_model_step(config, task, exact_shortcuts=False)}
  return trainer, state, compiled, compile_sec, flops


def xla_flops_per_model_step(config, task, exact_shortcuts: bool | None = None) -> float:
  """XLA's cost analysis of one train step per model (with ``model.exact_shortcuts`` overridden)."""
  from learnpe_jax.training.sweep import model_axis
  from learnpe_jax.training.compiled import Trainer

  config = config.copy_and_resolve_references()
  config.train.chunk_steps = 1  # the analysis counts a loop body once: analyse a one-step chunk
  config.train.models_per_group = 0  # lax.map bodies are counted once, too
  if exact_shortcuts is not None:
    config.model.exact_shortcuts = exact_shortcuts
  axis = model_axis(config)
  trainer = Trainer(config, task, axis)
  cost = trainer.train_chunk.lower(trainer.init()).compile().cost_analysis()
  cost = cost[0] if isinstance(cost, (list, tuple)) else cost
  # A sharded program's cost is one device's share: axis.size / mesh.size models.
  return float(cost.get("flops", float("nan"))) / (axis.size / trainer.mesh.size)


def time_chunks(compiled, state, chunks: int):
  """Seconds for ``chunks`` chunks (after the state is ready) and the state after them."""
  jax.block_until_ready(state)
  t = time.perf_counter()
  for _ in range(chunks):
    state, m = compiled(state)
  jax.block_until_ready(m)
  return time.perf_counter() - t, state


def benchmark(config, num_models: int, chunks: int) -> dict:
  trainer, state, compiled, compile_sec, flops = build(config, num_models)
  config, steps = trainer.config, trainer.config.train.chunk_steps
  _, state = time_chunks(compiled, state, 1)  # warm-up
  elapsed, state = time_chunks(compiled, state, chunks)
  rate = chunks * steps * num_models / elapsed
  peak = matmul_peak_gflops()
  achieved = flops["train"] * rate / 1e9
  return {
      "model_steps_per_sec": round(rate, 3),
      "examples_per_sec": round(rate * config.train.batch_size, 1),
      "train_flops_per_model_step": flops["train"],
      "model_flops_per_model_step": flops["model"],
      "achieved_gflops": round(achieved, 2),
      "matmul_peak_gflops": round(peak, 2),
      "mfu": round(flops["model"] * rate / 1e9 / peak, 3),
      "hfu": round(achieved / peak, 3),
      "compile_sec": round(compile_sec, 2),
      "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
      "num_models": num_models,
      "devices": [str(d) for d in jax.devices()],
      "width": config.model.width, "depth": config.model.depth,
      "batch_size": config.train.batch_size, "chunk_steps": steps,
      "models_per_group": trainer.layout.models_per_group,
      "parallel_streams": trainer.layout.parallel_streams,
      "exact_shortcuts": config.model.exact_shortcuts,
  }


def config_from_flags():
  """--config with the --chunk_steps (or the short default), --models_per_group and
  --parallel_streams overrides."""
  config = _CONFIG.value
  config.train.chunk_steps = _CHUNK_STEPS.value or min(config.train.chunk_steps,
                                                       DEFAULT_CHUNK_STEPS)
  if _GROUP.value is not None:
    config.train.models_per_group = _GROUP.value
  if _STREAMS.value is not None:
    config.train.parallel_streams = _STREAMS.value
  return config


def main(argv):
  del argv
  print(json.dumps(benchmark(config_from_flags(), _NUM_MODELS.value, _CHUNKS.value)))
  sys.stdout.flush()


if __name__ == "__main__":
  app.run(main)
