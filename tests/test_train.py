"""Properties of the trainer: vmapped sweep = loop of single runs; resume = uninterrupted; seeded."""

import os
import shutil

import jax
import numpy as np
import pytest

from learnpe_jax.errors import UserError
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training import loop
from learnpe_jax.training.sweep import model_axis
from learnpe_jax.training.compiled import Trainer
from tests.helpers import SMOKE_RUN_STEPS, assert_sweep_equals_single_runs, run_main


@pytest.mark.e2e
def test_vmapped_sweep_equals_loop_of_single_model_runs(smoke_config):
  config = smoke_config
  config.sweep.pe_init_scale = (0.05, 1.5)
  config.sweep.seeds = (0, 3)
  config.train.chunk_steps = 30
  joint = assert_sweep_equals_single_runs(config, chunks=2)
  # The models really differ: σ and seed matter.
  pe = joint["models"]["params"]["pe"]["table_0"]
  assert not np.allclose(pe[0], pe[1]) and not np.allclose(pe[0], pe[2])


def _train_one_chunk_in_layout(data_dir, group, streams):
  """One chunk of a 4-σ smoke sweep with ``models_per_group=group``, ``parallel_streams=streams``:
  (the layout the trainer chose, its state and metrics)."""
  from configs import grid2d
  config = grid2d.get_config("smoke")
  config.data.data_dir = data_dir
  config.sweep.pe_init_scale = (0.05, 0.3, 1.5, 0.8)
  config.sweep.seeds = (0,)
  config.train.chunk_steps = 20
  config.train.models_per_group, config.train.parallel_streams = group, streams
  trainer = Trainer(config, load_task(config), model_axis(config))
  state, metrics = trainer.train_chunk(trainer.init())
  layout = (trainer.layout.models_per_group, trainer.layout.parallel_streams)
  return layout, jax.device_get((state, metrics))


@pytest.fixture(scope="module")
def all_models_in_one_group(data_dir):
  layout, reference = _train_one_chunk_in_layout(data_dir, 0, 1)
  assert layout == (4, 1)
  return reference


@pytest.mark.e2e
@pytest.mark.parametrize("group, streams, expected", [
    (2, 2, (2, 2)),
    pytest.param(4, 2, (4, 2), marks=pytest.mark.slow),  # one compile each; (2, 2) covers both
    pytest.param(0, 4, (4, 4), marks=pytest.mark.slow),  # knobs in the default run
])
def test_every_model_layout_trains_the_same_models(data_dir, all_models_in_one_group, group,
                                                   streams, expected):
  """Groups one after another (``models_per_group``) and independent streams inside a group
  (``parallel_streams``) change only how the models are scheduled, not what they compute."""
  layout, state_and_metrics = _train_one_chunk_in_layout(data_dir, group, streams)
  assert layout == expected
  for a, b in zip(jax.tree.leaves(state_and_metrics), jax.tree.leaves(all_models_in_one_group),
                  strict=True):
    np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5, err_msg=str(layout))


@pytest.mark.e2e
def test_learned_coordinates_get_their_procrustes_r2(smoke_config):
  """``coords_r2`` per model: 1 for coordinates that are a similarity transform of the grid, less
  for the σ-scaled random draw; PEs without learned coordinates get none."""
  config = smoke_config
  config.model.pe.name = "learned_coords_rope"
  trainer = Trainer(config, load_task(config), model_axis(config))
  params = jax.device_get(trainer.init()["models"]["params"])
  true = np.asarray(trainer.task.positions.coords)
  coords = np.array(params["pe"]["coords"])
  coords[0] = 3.0 * true @ np.array([[0.0, -1.0], [1.0, 0.0]]) + 1.0  # rotated, scaled, moved
  params["pe"]["coords"] = coords
  rows = loop._per_model_pe_analysis(trainer, params, config)
  assert rows[0]["coords_r2"] == pytest.approx(1.0, abs=1e-9)
  assert all(r["coords_r2"] < 0.9 for r in rows[1:]), rows
  learned = smoke_config.copy_and_resolve_references()
  learned.model.pe.name = "learned"
  trainer = Trainer(learned, load_task(learned), model_axis(learned))
  rows = loop._per_model_pe_analysis(trainer, trainer.init()["models"]["params"], learned)
  assert all("coords_r2" not in r and "pe_rsa" in r for r in rows)


def test_same_seed_gives_same_unit_draw_at_every_sigma(smoke_config):
  smoke_config.sweep.pe_init_scale = (0.1, 2.0)
  smoke_config.sweep.seeds = (5,)
  task = load_task(smoke_config)
  state = Trainer(smoke_config, task, model_axis(smoke_config)).init()
  table = np.asarray(state["models"]["params"]["pe"]["table_0"])
  np.testing.assert_allclose(table[0] / 0.1, table[1] / 2.0, rtol=1e-5)
  assert abs(table[1].std() - 2.0) < 0.2  # normal family: σ is the std


@pytest.mark.e2e
@pytest.mark.parametrize("override, message", [
    ("--config.model.pe.name=bogus", "config.model.pe.name='bogus' is not allowed: one of"),
    ("--config.sweep.pe_init_scale=(-0.1,1.0)", "config.sweep.pe_init_scale=[-0.1, 1.0]"),
    ("--config.sweep.pe_init_scale=()", "config.sweep.pe_init_scale=[] is not allowed"),
    ("--config.sweep.seeds=()", "config.sweep.seeds=[] is not allowed"),
    ("--config.model.widht=64", 'unknown config field model.widht (did you mean "width"?)'),
    ("--config.model.num_heads=3", "config.model.num_heads=3 is not allowed: a divisor"),
    ("--config.train.eval_every=75", "a multiple of train.chunk_steps=50"),
    ("--config.optim.name=adam", "config.optim.name='adam' is not allowed: one of adamw, sgd"),
    ("--config.optim.momentum=1.5", "config.optim.momentum=1.5 is not allowed"),
    ("--config.data.generator=sudoku", "config.data.generator='sudoku' is not allowed"),
])
def test_bad_config_exits_with_one_line_before_compiling(tmp_path, override, message):
  result = run_main(tmp_path / "w", override)
  assert result.returncode == 2
  assert result.stderr.strip().count("\n") == 0, result.stderr
  assert message in result.stderr
  assert not (tmp_path / "w").exists()  # refused before anything was written


@pytest.mark.e2e
def test_workdir_with_other_config_is_refused_then_restarted(tmp_path, smoke_config, smoke_run):
  shutil.copytree(smoke_run, tmp_path, dirs_exist_ok=True)  # a finished run of this config …
  smoke_config.train.num_steps = SMOKE_RUN_STEPS  # … with smoke_run's number of steps
  before = (tmp_path / "summary.json").read_text()
  smoke_config.model.width = 16
  with pytest.raises(UserError, match="different config .*model.width"):
    loop.train_and_evaluate(smoke_config, str(tmp_path))
  assert (tmp_path / "summary.json").read_text() == before  # nothing damaged
  smoke_config.resume = False
  loop.train_and_evaluate(smoke_config, str(tmp_path))
  kept = [p for p in os.listdir(tmp_path) if p.startswith("previous_")]
  assert kept and (tmp_path / kept[0] / "summary.json").read_text() == before
