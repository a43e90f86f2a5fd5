"""The package's imports (docs/design.md, "Layers"): no import cycle among learnpe_jax modules, and
every import points down the layers foundation → tasks → pe → models → measures → run → training
→ analysis (the reports) → launchers, with no exemption.

Imports are read from the source with ``ast`` (those inside functions included), not by importing:
``from learnpe_jax.tasks.netsim import task`` is an edge to ``learnpe_jax.tasks.netsim.task``,
``from learnpe_jax.pe import build_pe`` one to the package ``learnpe_jax.pe`` (its __init__).
"""

from __future__ import annotations

import ast
import pathlib

import networkx as nx
import pytest

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent.parent / "learnpe_jax"

# Layers from the bottom; a module belongs to the first layer with a prefix of its name.
LAYERS = {
    "foundation": ("learnpe_jax.errors", "learnpe_jax.positions", "learnpe_jax.paths",
                   "learnpe_jax.seed_stats"),
    "tasks": ("learnpe_jax.tasks",),
    "pe": ("learnpe_jax.pe",),
    "models": ("learnpe_jax.models",),
    # The pure measures that training logs at every eval and the reports read back.
    "measures": ("learnpe_jax.measures",),
    "run": ("learnpe_jax.run",),  # the run's files: workdir, checkpoints, preemption, tensorboard
    "training": ("learnpe_jax.training",),
    "analysis": ("learnpe_jax.analysis",),  # the reports of a finished run
    "launchers": ("learnpe_jax.main", "learnpe_jax.analyze", "learnpe_jax.evaluate",
                  "learnpe_jax.throughput", "learnpe_jax.cli"),
}
RANK = {layer: rank for rank, layer in enumerate(LAYERS)}

def module_files() -> dict[str, pathlib.Path]:
  """Every module of the package by dotted name (a package by its own name)."""
  out = {}
  for path in PACKAGE_DIR.rglob("*.py"):
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
      parts.pop()
    out[".".join(parts)] = path
  return out


def imported_modules(path: pathlib.Path, package: str, modules) -> set[str]:
  """The package's modules that the module at ``path`` (in ``package``) imports, anywhere in it:
  ``from a.b import c`` names the module ``a.b.c`` when there is one, else ``a.b``."""
  out = set()
  for node in ast.walk(ast.parse(path.read_text(), str(path))):
    if isinstance(node, ast.Import):
      out.update(alias.name for alias in node.names)
    elif isinstance(node, ast.ImportFrom):
      base = node.module or ""
      if node.level:
        parent = package.split(".")[:len(package.split(".")) - node.level + 1]
        base = ".".join(parent + ([base] if base else []))
      out.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
  return out & set(modules)


def import_graph() -> nx.DiGraph:
  """Module → the package's modules it imports."""
  files = module_files()
  graph = nx.DiGraph()
  graph.add_nodes_from(files)
  for module, path in files.items():
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    graph.add_edges_from((module, name) for name in imported_modules(path, package, files)
                         if name != module)
  return graph


def layer_of(module: str) -> str | None:
  if module == "learnpe_jax":
    return "foundation"
  for layer, prefixes in LAYERS.items():
    if any(module == p or module.startswith(p + ".") for p in prefixes):
      return layer
  return None


GRAPH = import_graph()


def test_import_graph_is_read():
  """The graph holds edges that are known to exist (so that an empty graph cannot pass)."""
  assert GRAPH.has_edge("learnpe_jax.training.compiled", "learnpe_jax.pe.registry")
  assert GRAPH.has_edge("learnpe_jax.tasks.lst.task",
                        "learnpe_jax.tasks.lst.tfds_builder")  # in a def
  assert GRAPH.number_of_edges() > 100


def test_no_import_cycles():
  cycles = sorted(" → ".join(c + [c[0]]) for c in nx.simple_cycles(GRAPH))
  print(f"{len(cycles)} import cycle(s)")
  assert not cycles, "\n".join(cycles)


def test_every_module_has_a_layer():
  assert [m for m in GRAPH if layer_of(m) is None] == []


@pytest.mark.parametrize("layer", list(LAYERS))
def test_imports_point_down_the_layers(layer):
  upward = [f"{a} → {b} ({layer_of(b)})" for a, b in GRAPH.edges
            if layer_of(a) == layer and RANK[layer_of(b)] > RANK[layer]]
  assert upward == []


def test_the_layers_are_folders():
  """Each layer but the foundation and the launchers is one folder of the package, so the tree
  shows the layering (a module in a folder of its own would need a layer of its own)."""
  folders = {p.name for p in PACKAGE_DIR.iterdir() if (p / "__init__.py").exists()}
  layered = {prefix.split(".")[1] for layer, prefixes in LAYERS.items()
             if layer not in ("foundation", "launchers") for prefix in prefixes}
  assert folders == layered

