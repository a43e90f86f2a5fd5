"""Tasks by name (``config.task``)."""

from __future__ import annotations

import importlib

from learnpe_jax.errors import ConfigError

TASKS = {"lst": "learnpe_jax.tasks.lst", "netsim": "learnpe_jax.tasks.netsim",
         "brain": "learnpe_jax.tasks.brain"}


def load_task(config):
  if config.task not in TASKS:
    raise ConfigError("task", config.task, f"one of {', '.join(sorted(TASKS))}")
  return importlib.import_module(TASKS[config.task]).load_task(config)
