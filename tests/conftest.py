import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)  # so `configs` imports in tests


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
  return str(tmp_path_factory.mktemp("tfds"))


@pytest.fixture
def smoke_config(data_dir):
  """The grid2d smoke config, its data under the session's tmp data dir."""
  from configs import grid2d
  config = grid2d.get_config("smoke")
  config.data.data_dir = data_dir
  return config


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, data_dir):
  """The workdir of one grid2d smoke run of 100 steps, trained once per test session (per xdist
  worker) and shared by the analysis, evaluate and human-puzzle tests."""
  from configs import grid2d
  from learnpe_jax.training import loop
  from tests.helpers import SMOKE_RUN_STEPS
  workdir = tmp_path_factory.getbasetemp() / "smoke_run"
  if not (workdir / "summary.json").exists():
    config = grid2d.get_config("smoke")
    config.data.data_dir = data_dir
    config.train.num_steps = SMOKE_RUN_STEPS
    loop.train_and_evaluate(config, str(workdir))
  return str(workdir)


@pytest.fixture(scope="session")
def smoke_cli_run(tmp_path_factory, data_dir):
  """The workdir of one uninterrupted ``python -m learnpe_jax.main`` run of the smoke config, run
  once per test session (per xdist worker): the reference that the resume, sharding, multi-process
  and remote-workdir tests compare against."""
  from tests.helpers import run_main
  workdir = tmp_path_factory.getbasetemp() / "smoke_cli_run"
  if not (workdir / "summary.json").exists():
    result = run_main(workdir, f"--config.data.data_dir={data_dir}")
    assert result.returncode == 0, result.stderr[-3000:]
  return workdir


def pytest_configure(config):
  # Reuse compiled programs across tests and test subprocesses (same shapes recompile often).
  cache = os.path.join(ROOT, ".jax_cache")
  os.environ.setdefault("JAX_COMPILATION_CACHE_DIR", cache)
  os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")
  os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES", "0")


@pytest.hookimpl(trylast=True)  # after `-m` has deselected
def pytest_collection_modifyitems(config, items):
  """A session that runs no ``e2e`` or ``slow`` test (the fast unit tier) compiles without XLA's
  optimisation passes: its tests build many small models and run each once or twice, so the
  passes cost more than they save (a third of the CPU time of the tier's heaviest files).
  Sessions with ``e2e`` or ``slow`` tests, which train for many steps, keep XLA's defaults. The
  flag is per process, not per test, because JAX keeps compiled programs across tests."""
  if items and not any(item.get_closest_marker(m) for item in items for m in ("e2e", "slow")):
    import jax
    jax.config.update("jax_disable_most_optimizations", True)
