"""Load a finished (or running) workdir back: its config, task, compiled trainer and latest state.

    run = load_run("runs/grid2d")
    run.trainer.evaluate(run.params, "test")      # per-model metrics
    run.pe_vectors()                               # float[M, blocks, N, W]
"""

from __future__ import annotations

import dataclasses
import json

import ml_collections
import numpy as np

from learnpe_jax import paths
from learnpe_jax.errors import UserError
from learnpe_jax.run.checkpoints import Checkpointer
from learnpe_jax.run.workdir import with_added_fields
from learnpe_jax.tasks.base import TaskData
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training import sharding
from learnpe_jax.training.sweep import ModelAxis, model_axis
from learnpe_jax.training.compiled import Trainer


@dataclasses.dataclass
class Run:
  workdir: str
  config: ml_collections.ConfigDict
  task: TaskData
  axis: ModelAxis
  trainer: Trainer
  state: dict

  @property
  def params(self):
    return self.state["models"]["params"]

  @property
  def step(self) -> int:
    return int(self.state["step"])

  def pe_vectors(self) -> np.ndarray | None:
    v = self.trainer.pe_vectors(self.params)
    return None if v is None else sharding.to_host(v)

  def summary(self) -> dict | None:
    path = paths.join(self.workdir, "summary.json")
    if not paths.exists(path):
      return None
    return json.loads(paths.read_text(path))


def load_config(workdir: str) -> ml_collections.ConfigDict:
  path = paths.join(workdir, "config.json")
  if not paths.exists(path):
    raise UserError(f"{workdir} holds no run (no config.json)")
  return ml_collections.ConfigDict(with_added_fields(json.loads(paths.read_text(path))))


def load_run(workdir: str, step: int | None = None) -> Run:
  """The run in ``workdir`` (local or a URI such as ``gs://``) at its latest checkpoint (or at init
  when there is none yet)."""
  workdir = paths.normalize(workdir)
  config = load_config(workdir)
  task = load_task(config)
  axis = model_axis(config)
  trainer = Trainer(config, task, axis)
  state = trainer.init()
  ckpt = Checkpointer(paths.join(workdir, "checkpoints"))
  try:
    restored = ckpt.restore_latest(state) if step is None else ckpt.restore(step, state)
  finally:
    ckpt.close()
  return Run(workdir, config, task, axis, trainer, restored if restored is not None else state)
