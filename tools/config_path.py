"""Which modules a run's config passes through, from ``train_and_evaluate`` to ``summary.json``.

    python tools/config_path.py [CONFIG]      # default configs/grid2d.py:smoke

Runs the config in a temporary workdir with a profile hook that notes every call of a
``learnpe_jax`` function that receives the config or one of its sections (an argument that *is*
the ConfigDict or a sub-ConfigDict of it, by identity). Prints the modules in the order the config
first reaches them, how many distinct modules that is, the sequence with consecutive repeats
collapsed, and how often the path returns to a module it had left. A measure of how many places a
reader must visit to follow one setting, not of speed.
"""

from __future__ import annotations

import collections
import importlib.util
import os
import sys
import tempfile

import ml_collections

sys.path.insert(0, os.getcwd())  # the configs import ``configs.common`` from the repository root


def load(spec: str) -> ml_collections.ConfigDict:
  path, _, arg = spec.partition(":")
  module_spec = importlib.util.spec_from_file_location("_config", path)
  module = importlib.util.module_from_spec(module_spec)
  module_spec.loader.exec_module(module)
  return module.get_config(arg) if arg else module.get_config()


def sections(config) -> set[int]:
  ids, stack = set(), [config]
  while stack:
    node = stack.pop()
    ids.add(id(node))
    stack += [v for v in node.values() if isinstance(v, ml_collections.ConfigDict)]
  return ids


def trace(config) -> list[str]:
  try:
    from learnpe_jax.training import loop
  except ImportError:  # the host loop's module before it was named ``loop``
    from learnpe_jax.training import train as loop
  ids, path = sections(config), []

  def hook(frame, event, arg):
    if event != "call":
      return
    module = frame.f_globals.get("__name__", "")
    if not module.startswith("learnpe_jax"):
      return
    code = frame.f_code
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    if any(id(frame.f_locals.get(n)) in ids for n in names):
      path.append(module)

  with tempfile.TemporaryDirectory() as workdir:
    sys.setprofile(hook)
    try:
      loop.train_and_evaluate(config, workdir)
    finally:
      sys.setprofile(None)
  return path


def main() -> None:
  spec = sys.argv[1] if len(sys.argv) > 1 else "configs/grid2d.py:smoke"
  path = trace(load(spec))
  collapsed = [m for i, m in enumerate(path) if i == 0 or path[i - 1] != m]
  seen, returns = set(), 0
  for i, m in enumerate(collapsed):
    returns += m in seen
    seen.add(m)
  order = list(dict.fromkeys(path))
  print(f"{spec}: {len(order)} modules; {len(collapsed)} steps with consecutive repeats "
        f"collapsed; {returns} returns to a module already left")
  for m, n in collections.Counter(path).most_common():
    print(f"  {n:5d}  {m}")


if __name__ == "__main__":
  main()
