"""Tasks by name (``config.task``).

A task is a module (or any object) with ``load_task(config) -> TaskData`` and, optionally,
``validate_data(config.data)`` (checks that need no data). The project's tasks are listed in
``TASKS`` by module path; ``register_task`` adds one from outside the package
(docs/adding_a_task.md). ``config.task`` may also be the dotted path of an importable module that
has ``load_task``: then a process that never called ``register_task`` (``python -m
learnpe_jax.analyze`` on the run's workdir) finds the task too.
"""

from __future__ import annotations

import importlib
import re
import types

from learnpe_jax.errors import ConfigError

TASKS = {"lst": "learnpe_jax.tasks.lst.task", "netsim": "learnpe_jax.tasks.netsim.task",
         "brain": "learnpe_jax.tasks.brain.task", "lengthgen": "learnpe_jax.tasks.lengthgen.task",
         "textlm": "learnpe_jax.tasks.textlm.task"}
_REGISTERED: dict[str, object] = {}  # name → module (or namespace) of a registered task
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def register_task(name: str, task) -> None:
  """Make ``config.task = name`` load ``task``: a module (or any object) with ``load_task(config)
  -> TaskData`` and optionally ``validate_data(data_config)``, a module's dotted path (imported
  when the task is first used), or a bare ``load_task`` function. A name must be an identifier
  not taken; a bad one is a one-line ``ConfigError``."""
  if not isinstance(name, str) or not _NAME.fullmatch(name):
    raise ConfigError("task", name, "a task name that is a Python identifier, e.g. 'my_task'")
  if name in TASKS or name in _REGISTERED:
    raise ConfigError("task", name, f"a name not yet taken (taken: {', '.join(task_names())})")
  if callable(task) and not isinstance(task, types.ModuleType) and not hasattr(task, "load_task"):
    task = types.SimpleNamespace(load_task=task)
  elif not isinstance(task, str) and not callable(getattr(task, "load_task", None)):
    raise ConfigError("task", name, "a module or object with load_task(config), its dotted path, "
                      "or a load_task function")
  _REGISTERED[name] = task


def unregister_task(name: str) -> None:
  """Forget a task added by ``register_task`` (tests; the project's own tasks stay)."""
  _REGISTERED.pop(name, None)


def task_names() -> list[str]:
  """The project's tasks and the registered ones."""
  return sorted(TASKS) + sorted(_REGISTERED)


def task_module(config):
  name = config.task
  if name in TASKS:
    return importlib.import_module(TASKS[name])
  if name in _REGISTERED:
    task = _REGISTERED[name]
    if isinstance(task, str):
      task = _REGISTERED[name] = _import_task(name, task)
    return task
  if isinstance(name, str) and "." in name:
    return _import_task(name, name)
  raise ConfigError("task", name, f"one of {', '.join(task_names())}, a name given to "
                    "register_task, or the dotted path of a module with load_task(config)")


def _import_task(name: str, path: str):
  try:
    module = importlib.import_module(path)
  except ImportError as e:
    raise ConfigError("task", name, f"an importable task module ({path}: {e})") from None
  if not callable(getattr(module, "load_task", None)):
    raise ConfigError("task", name, f"a module with load_task(config) ({path} has none)")
  return module


def validate_data(config) -> None:
  """The task's own checks of ``config.data`` that need no data (where the task has them)."""
  module = task_module(config)
  if hasattr(module, "validate_data"):
    module.validate_data(config.data)


def load_task(config):
  return task_module(config).load_task(config)
