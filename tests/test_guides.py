"""The guides docs/adding_a_pe.md and docs/adding_a_task.md, followed literally: their ``python``
blocks run in order in one namespace (a block whose info string says ``file=PATH`` is written to
PATH under a temporary folder on ``sys.path`` instead), so a guide that drifts from the code fails
here. The PE and the task they define live outside the package; each test removes what its guide
registered, so that the catalogue's own tests never see it."""

from __future__ import annotations

import os
import re
import sys
import types

import pytest

from learnpe_jax.errors import ConfigError
from learnpe_jax.pe.registry import REGISTRY
from learnpe_jax.tasks import registry as task_registry

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GUIDE_MODULE = "guide_script"
BLOCK = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.S | re.M)


def blocks(guide: str) -> list[tuple[str | None, str]]:
  """(file or None, code) of each ``python`` block of docs/<guide>, in order."""
  with open(os.path.join(ROOT, "docs", guide)) as f:
    text = f.read()
  out = []
  for info, code in BLOCK.findall(text):
    match = re.search(r"file=(\S+)", info)
    out.append((match.group(1) if match else None, code))
  return out


def follow(guide: str, tmp_path, monkeypatch) -> dict:
  """Run the guide's blocks; returns their namespace."""
  src = tmp_path / "src"
  src.mkdir()
  monkeypatch.syspath_prepend(str(src))
  monkeypatch.chdir(ROOT)  # `configs` importable, as in a clone
  # The blocks run as the module of a script of one's own (dataclasses, and so Flax modules,
  # look their module up in sys.modules).
  module = types.ModuleType(GUIDE_MODULE)
  monkeypatch.setitem(sys.modules, GUIDE_MODULE, module)
  module.workdir = str(tmp_path / "run")
  for path, code in blocks(guide):
    if path:
      (src / path).parent.mkdir(parents=True, exist_ok=True)
      (src / path).write_text(code)
    else:
      exec(compile(code, f"docs/{guide}", "exec"), module.__dict__)  # noqa: S102
  return module.__dict__


@pytest.fixture
def clean_registries():
  pes, tasks = set(REGISTRY), set(task_registry.task_names())
  modules = set(sys.modules)
  yield
  for name in set(REGISTRY) - pes:
    del REGISTRY[name]
  for name in set(task_registry.task_names()) - tasks:
    task_registry.unregister_task(name)
  for name in set(sys.modules) - modules:
    if name == "my_tasks" or name.startswith("my_tasks."):
      del sys.modules[name]


def test_the_guides_have_their_blocks():
  pe_blocks, task_blocks = blocks("adding_a_pe.md"), blocks("adding_a_task.md")
  assert len(pe_blocks) == 4 and all(path is None for path, _ in pe_blocks)
  assert [path for path, _ in task_blocks] == ["my_tasks/quadrant.py", None, None, None]


@pytest.mark.e2e
def test_adding_a_pe(tmp_path, monkeypatch, clean_registries):
  ns = follow("adding_a_pe.md", tmp_path, monkeypatch)
  assert "gaussian_bias" in REGISTRY and ns["GaussianBias"].__module__ == GUIDE_MODULE
  assert [r["pe_init_scale"] for r in ns["summary"]["models"]] == [0.01, 0.01, 1.0, 1.0]
  assert all(r["test_accuracy"] > 0 for r in ns["summary"]["models"])
  assert os.path.exists(os.path.join(ns["workdir"], "analysis.json"))
  assert os.path.exists(os.path.join(ns["workdir"], "report.md"))
  # The PE fills logit_bias: every eval logged the geometry of its bias.
  with open(os.path.join(ns["workdir"], "metrics.jsonl")) as f:
    assert '"pe_bias_rsa"' in f.read()


@pytest.mark.e2e
def test_adding_a_task(tmp_path, monkeypatch, clean_registries):
  ns = follow("adding_a_task.md", tmp_path, monkeypatch)
  assert ns["summary"]["task"] == "quadrant"
  models = ns["summary"]["models"]
  assert [r["pe_init_scale"] for r in models] == [0.02, 0.02, 2.0, 2.0]
  assert max(r["test_accuracy"] for r in models) > 0.5, models  # chance: 0.25
  assert os.path.exists(os.path.join(ns["workdir"], "report.md"))


def test_register_task_errors_and_dotted_paths(tmp_path, monkeypatch, clean_registries):
  """A bad or taken name is one ConfigError line; ``config.task`` may be a module's dotted path."""
  for bad in ("", "my task", "lst", 3):
    with pytest.raises(ConfigError, match="config.task="):
      task_registry.register_task(bad, "x.y")
  with pytest.raises(ConfigError, match="load_task"):
    task_registry.register_task("nothing", object())
  (tmp_path / "my_tasks").mkdir()
  (tmp_path / "my_tasks" / "dummy.py").write_text("def load_task(config):\n  return 'data'\n")
  monkeypatch.syspath_prepend(str(tmp_path))
  as_config = lambda task: types.SimpleNamespace(task=task)
  assert task_registry.load_task(as_config("my_tasks.dummy")) == "data"
  task_registry.register_task("dummy_fn", lambda config: "from a function")
  assert task_registry.load_task(as_config("dummy_fn")) == "from a function"
  for bad, match in (("no_such_task", "one of brain"), ("my_tasks.nope", "importable"),
                     ("os.path", "load_task")):
    with pytest.raises(ConfigError, match=match):
      task_registry.load_task(as_config(bad))
