"""``train_and_evaluate(config, workdir)``: the whole sweep as one job, importable from a notebook.

Flow: validate the config (before any data or compilation) → load the task → init every model of the
sweep at once → restore the latest checkpoint if any → train in compiled chunks, evaluating,
logging and checkpointing at chunk boundaries → write ``summary.json`` and print the per-σ table.
"""

from __future__ import annotations

import contextlib
import json
import os
import time

from absl import logging
import jax
import numpy as np

from learnpe_jax.measures.bias_geometry import bias_metrics
from learnpe_jax.measures.geometry import procrustes_disparity
from learnpe_jax.measures.grid_change import pe_change
from learnpe_jax.measures.pe_metrics import pe_metrics
from learnpe_jax.run import preemption, tensorboard
from learnpe_jax.run.checkpoints import Checkpointer
from learnpe_jax.run.workdir import Workdir, write_json
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training import config_validation, report, sharding
from learnpe_jax.training.sweep import model_axis
from learnpe_jax.training.compiled import Trainer


def _per_model_pe_analysis(trainer: Trainer, params, config) -> list[dict]:
  """Per model: ``measures.pe_metrics`` of the PE's vectors, ``measures.bias_geometry`` of its
  content-free attention logits and, for learned coordinates (``pe.learned_coords``), ``coords_r2``
  = 1 − ``measures.geometry.procrustes_disparity`` against the true coordinates (1: the true
  layout up to a similarity transform), for the PEs that have them (empty for a PE with none)."""
  out = [{} for _ in range(trainer.axis.size)]
  vectors = trainer.pe_vectors(params)
  if vectors is not None:
    for row, v in zip(out, sharding.to_host(vectors), strict=True):
      row.update(pe_metrics(v, trainer.task, config))
  logits = trainer.pe_logits(params)
  if logits is not None:
    for row, b in zip(out, sharding.to_host(logits), strict=True):
      row.update(bias_metrics(b, trainer.task, config))
  coords = params.get("pe", {}).get("coords")
  if coords is not None:
    true = np.asarray(trainer.task.positions.coords)
    for row, c in zip(out, sharding.to_host(coords), strict=True):
      row["coords_r2"] = 1.0 - procrustes_disparity(c, true)
  return out


def _per_model_pe_change(trainer: Trainer, init_vectors, final_params, config) -> list[dict]:
  """Per model: ``pe_change`` (``measures.grid_change``: the PE's RSAs at init and at the end,
  paired, its movement and Mantel p) for PEs that add vectors (``init_vectors``: their vectors at
  init, on the host); empty for the others."""
  if init_vectors is None:
    return [{} for _ in range(trainer.axis.size)]
  init, final = init_vectors, trainer.pe_vectors(final_params)
  coords = np.asarray(trainer.task.positions.coords)
  readout_cell = trainer.task.num_tokens - 1 if config.model.readout == "last" else None
  return [{"pe_change": pe_change(f, i, coords, readout_cell, config.analysis.distance)}
          for f, i in zip(sharding.to_host(final), init, strict=True)]


def _eval_rows(trainer: Trainer, state, train_metrics, config, pe=None,
               cost: dict | None = None) -> list[dict]:
  """One metrics.jsonl row per model at the current step (``pe``: the rows' PE measures when
  already computed for these parameters; ``cost``: adds the seconds spent to its ``eval_s`` and
  ``pe_measures_s``)."""
  step = int(state["step"])
  t = time.time()
  scores = report.evaluate_all(trainer, state["models"]["params"], trainer.task.eval_sets)
  t_scored = time.time()
  if pe is None:
    pe = _per_model_pe_analysis(trainer, state["models"]["params"], config)
  if cost is not None:
    cost["eval_s"] += t_scored - t
    cost["pe_measures_s"] += time.time() - t_scored
  diverged = sharding.to_host(state["models"]["diverged_step"])
  rows = []
  for i, rec in enumerate(trainer.axis.records):
    row = {"step": step, "model": i, **rec}
    if train_metrics is not None:
      row["train_loss"] = float(train_metrics["loss"][i])
      row[f"train_{report.score_name(trainer.task)}"] = float(train_metrics["score"][i])
    row.update(scores[i])
    row.update(pe[i])
    row["diverged"] = bool(diverged[i] >= 0)
    rows.append(row)
  return rows


def train_and_evaluate(config, workdir: str) -> dict:
  """Train every model of ``config``'s sweep; returns the summary (also in workdir/summary.json).

  ``timing.json`` beside it says how long the run took: ``wall_s`` from the start of the first
  process to the end of the last (summed over resumes; the time from the last checkpoint to an
  interruption is not counted, as the resumed run does that work again), the fewest ``cores`` any
  of its processes could use, ``model_steps_per_s`` of the last process's timed chunks (the
  compiling chunk left out) and how many ``processes`` it took."""
  t_start = time.time()
  config_validation.validate(config)
  wd = Workdir(workdir, writer=sharding.is_writer())
  task = load_task(config)
  config_validation.validate_with_task(config, task)
  config_dict = json.loads(config.to_json_best_effort())
  wd.prepare(config_dict, resume=config.resume,
             barrier=lambda: sharding.barrier("learnpe_jax:workdir_read"))
  sharding.barrier("learnpe_jax:workdir_ready")  # the writer has moved an old run aside
  axis = model_axis(config)
  logging.info("Sweep of %d models (σ × lr × seeds), task %s with %d tokens, PE %s.",
               axis.size, task.name, task.num_tokens, config.model.pe.name)
  cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
  logging.info("Devices: %d %s; this process may use %d CPU cores.", jax.device_count(),
               jax.default_backend(), cores)

  trainer = Trainer(config, task, axis)
  eval_cost = {"eval_s": 0.0, "pe_measures_s": 0.0}  # this process's; ``timing`` adds the prior
  t0 = time.time()
  state = trainer.init()
  # The one init: what the summary needs of the models at init is taken now, as training donates
  # the state's buffers (and a restored run continues from its checkpoint instead).
  t_measure = time.time()
  init_pe = _per_model_pe_analysis(trainer, state["models"]["params"], config)
  init_vectors = trainer.pe_vectors(state["models"]["params"])
  init_vectors = None if init_vectors is None else sharding.to_host(init_vectors)
  eval_cost["pe_measures_s"] += time.time() - t_measure
  ckpt = Checkpointer(wd.file("checkpoints"))
  restored = ckpt.restore_latest(state)
  wd.record_config(config_dict)
  board = tensorboard.create_writer(wd.path, enabled=sharding.is_writer())
  prior = wd.read_timing() if restored is not None else {}

  def timing(step: int) -> dict:  # reads the rate of the timed chunks so far (below)
    wall = prior.get("wall_s", 0.0) + time.time() - t_start
    spent = {k: prior.get(k, 0.0) + v for k, v in eval_cost.items()}
    return {"wall_s": round(wall, 1),
            "cores": min(cores, prior.get("cores", cores)), "steps": step,
            "model_steps_per_s": round(steps_timed / t_timed * axis.size, 1) if t_timed else None,
            "processes": prior.get("processes", 0) + 1,
            **{k: round(v, 1) for k, v in spent.items()},
            "eval_share": round(sum(spent.values()) / wall, 4) if wall > 0 else None}

  if restored is not None:
    state = restored
    logging.info("Resumed from checkpoint at step %d.", int(state["step"]))
    wd.truncate_metrics(int(state["step"]))
  else:
    wd.truncate_metrics(-1)
    rows = _eval_rows(trainer, state, None, config, pe=init_pe, cost=eval_cost)
    wd.append_metrics(rows)
    tensorboard.write_rows(board, rows)

  c = config.train
  compiled_at, steps_timed, t_timed = None, 0, 0.0
  with contextlib.ExitStack() as stack:
    stack.callback(ckpt.close)
    stop = stack.enter_context(preemption.sigterm_sets_flag())
    while int(state["step"]) < c.num_steps:
      t_chunk = time.time()
      state, metrics = trainer.train_chunk(state)
      metrics = sharding.to_host(metrics)  # one pull per chunk
      step = int(state["step"])
      if compiled_at is None:
        compiled_at = time.time() - t0
        logging.info("First chunk (incl. compile) done after %.1fs.", compiled_at)
      else:
        steps_timed += c.chunk_steps
        t_timed += time.time() - t_chunk
      if step % c.log_every == 0 or step == c.num_steps:
        loss = float(np.nanmean(metrics["loss"]))
        if t_timed:
          rate = steps_timed / t_timed
          logging.info("step %d/%d  %.1f steps/s (%.1f model-steps/s)  ETA %.0fs  train loss "
                       "%.4f (mean over models)", step, c.num_steps, rate, rate * axis.size,
                       (c.num_steps - step) / rate, loss)
        else:  # only the compiling chunk so far: no rate yet
          logging.info("step %d/%d  train loss %.4f (mean over models)", step, c.num_steps, loss)
      if step % c.eval_every == 0 or step == c.num_steps:
        rows = _eval_rows(trainer, state, metrics, config, cost=eval_cost)
        wd.append_metrics(rows)
        tensorboard.write_rows(board, rows)
      # Every process stops at the same step: a SIGTERM to any of them stops them all here.
      stop_now = sharding.any_process(stop.requested)
      if step % c.checkpoint_every == 0 or step == c.num_steps or stop_now:
        ckpt.save(step, state)
        wd.write_timing(timing(step))
      if stop_now and step < c.num_steps:
        raise preemption.Preempted(step, wd.path, here=stop.requested)

  final_params = state["models"]["params"]
  t_measure = time.time()
  final_pe = [dict(a, **b) for a, b in zip(
      _per_model_pe_analysis(trainer, final_params, config),
      _per_model_pe_change(trainer, init_vectors, final_params, config), strict=True)]
  eval_cost["pe_measures_s"] += time.time() - t_measure
  t_scored = time.time()
  summary = report.run_summary(trainer, state, init_pe, final_pe, config)  # scores every split
  eval_cost["eval_s"] += time.time() - t_scored
  if sharding.is_writer():
    write_json(wd.file("summary.json"), summary)
    wd.write_timing(timing(int(state["step"])))
    print(report.format_table(summary))
  return summary
