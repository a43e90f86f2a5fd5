"""Tasks by name (``config.task``)."""

from __future__ import annotations

import importlib

from learnpe_jax.errors import ConfigError

TASKS = {"lst": "learnpe_jax.tasks.lst.task", "netsim": "learnpe_jax.tasks.netsim.task",
         "brain": "learnpe_jax.tasks.brain.task", "lengthgen": "learnpe_jax.tasks.lengthgen.task"}


def task_module(config):
  if config.task not in TASKS:
    raise ConfigError("task", config.task, f"one of {', '.join(sorted(TASKS))}")
  return importlib.import_module(TASKS[config.task])


def validate_data(config) -> None:
  """The task's own checks of ``config.data`` that need no data (where the task has them)."""
  module = task_module(config)
  if hasattr(module, "validate_data"):
    module.validate_data(config.data)


def load_task(config):
  return task_module(config).load_task(config)
