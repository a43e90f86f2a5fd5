"""Training with randomized positions (Ruoss et al. 2023; ``model.randomized_positions``): each
step's positions are sorted distinct draws from a longer range, the table grows to that range and
every row of it is trained, evaluation reads the true positions (and records scores at drawn ones
beside them), and what cannot work is refused before anything compiles."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from learnpe_jax import pe
from learnpe_jax.errors import ConfigError
from learnpe_jax.training import config_validation
from learnpe_jax.training.compiled import build_model
from tests.helpers import checked_trainer, length_smoke_config

M = 40


def _config(data_dir, randomized=M, pe_name="learned"):
  return length_smoke_config(data_dir, pe_name, randomized)


def test_a_learned_pe_called_per_example_with_the_block_input_adds_per_example_rows():
  """A plain table given the block input (as the encoder gives every PE) keeps its [B, N, W]."""
  module = pe.make("learned", width=8, num_heads=2, num_tokens=M, init_scale=1.0)
  positions = pe.randomized_positions(jax.random.PRNGKey(0), 3, 5, M)
  params = module.init(jax.random.PRNGKey(1), positions, 0)
  table = params["params"]["table_0"] if "table_0" in params["params"] else None
  add = module.apply(params, positions, 0, jnp.zeros((3, 5, 8))).add
  alone = jnp.stack([module.apply(params, pe.Positions(index=i), 0).add for i in positions.index])
  assert add.shape == (3, 5, 8)
  np.testing.assert_array_equal(add, alone)
  assert table is None or table.shape[0] == M


def test_training_positions_are_sorted_distinct_draws_per_step_and_model(data_dir):
  trainer = checked_trainer(_config(data_dir))
  n, keys = trainer.task.num_tokens, trainer.axis.keys(1)
  batch = {k: jnp.asarray(v[:trainer.config.train.batch_size])
           for k, v in trainer.task.train.items()}
  draw = lambda model, step: np.asarray(
      trainer._training_positions(keys[model], jnp.int32(step), batch).index)
  a = draw(0, 3)
  assert a.shape == (trainer.config.train.batch_size, n) and a.min() >= 0 and a.max() < M
  np.testing.assert_array_equal(a, draw(0, 3))                  # the same step, the same draw
  assert not np.array_equal(a, draw(0, 4)) and not np.array_equal(a, draw(1, 3))
  mask = np.asarray(batch["loss_mask"])
  lengths = np.array([np.flatnonzero(row).max() + 1 for row in mask])
  for row, k in zip(a, lengths, strict=True):
    assert (np.diff(row[:k]) > 0).all()        # the real tokens: sorted, distinct
    assert (np.diff(row[k - 1:]) >= 0).all()   # the padding follows them
  # A short sequence's real tokens spread over the whole range, not over its first rows only.
  last_real = a[np.arange(len(a)), lengths - 1]
  assert last_real.max() > M // 2 and last_real[lengths <= n // 2].max() >= n


def test_without_lengths_the_draw_is_the_librarys_plain_one():
  key = jax.random.PRNGKey(3)
  plain = pe.randomized_positions(key, 4, 6, 30).index
  full = pe.randomized_positions(key, 4, 6, 30, lengths=jnp.full((4,), 6)).index
  np.testing.assert_array_equal(plain, full)
  short = np.asarray(pe.randomized_positions(key, 4, 6, 30, lengths=jnp.array([1, 2, 6, 3])).index)
  assert short[0, 1:].tolist() == [min(short[0, 0] + j, 29) for j in range(1, 6)]


def test_off_means_the_tasks_positions_and_the_tasks_table(data_dir):
  config = _config(data_dir, randomized=0)
  trainer = checked_trainer(config)
  assert trainer._training_positions(trainer.axis.keys(1)[0], jnp.int32(0), {}) is None
  assert build_model(config, trainer.task).pe.num_tokens == trainer.task.num_tokens
  assert build_model(_config(data_dir), trainer.task).pe.num_tokens == M


@pytest.mark.e2e
def test_every_row_of_the_table_is_trained_and_eval_reads_the_true_positions(data_dir):
  trainer = checked_trainer(_config(data_dir))
  state = trainer.init()
  before = jax.tree.map(np.asarray, state["models"]["params"])
  state, _ = trainer.train_chunk(state)
  after = state["models"]["params"]
  moved = [np.abs(np.asarray(a) - b).max(axis=-1) for a, b in
           zip(jax.tree.leaves(after["pe"]), jax.tree.leaves(before["pe"]), strict=True)
           if b.ndim == 3 and b.shape[1] == M]
  assert moved and all((m > 0).all() for m in moved)  # rows 0 … M−1 of every model, every block
  params = jax.tree.map(lambda a: a[0], after)
  batch = {k: jnp.asarray(v[:8]) for k, v in trainer.task.test.items() if k != "level"}
  true = trainer.model.apply({"params": params}, batch["tokens"], trainer.positions)
  np.testing.assert_array_equal(trainer.apply(params, batch), true)


@pytest.mark.e2e
def test_evaluation_at_drawn_positions_is_reproducible_and_reads_them(data_dir):
  """``Trainer.evaluate`` with a ``draw_key`` (the way Ruoss et al.'s released code scores):
  the same key scores the same, another key draws other positions, and a learned table, whose
  rows at the drawn positions are other rows than at the true ones, scores otherwise."""
  trainer = checked_trainer(_config(data_dir))
  params = trainer.init()["models"]["params"]
  true = trainer.evaluate(params, "test")
  drawn = [trainer.evaluate(params, "test", jax.random.PRNGKey(k)) for k in (0, 0, 1)]
  np.testing.assert_array_equal(drawn[0]["loss"], drawn[1]["loss"])
  assert not np.array_equal(drawn[0]["loss"], drawn[2]["loss"])
  assert not np.array_equal(drawn[0]["loss"], true["loss"])
  assert drawn[0]["score_by_level"].shape == true["score_by_level"].shape


@pytest.mark.e2e
def test_a_randomized_run_records_drawn_position_scores_beside_the_true_ones(data_dir):
  """``report.evaluate_all`` (every evaluation row and summary): a randomized run's records carry
  ``drawn_test_*``, the scores at the draw ``PRNGKey(DRAWN_POSITIONS_KEY)`` (draw 0 of
  ``experiments.randomized_eval_positions``), beside the unprefixed scores at the true positions;
  the training split is not drawn, and a run without randomized positions records none."""
  from learnpe_jax.training import report, sharding
  trainer = checked_trainer(_config(data_dir))
  params = trainer.init()["models"]["params"]
  rows = report.evaluate_all(trainer, params, ("train", "test"))
  key = jax.random.PRNGKey(report.DRAWN_POSITIONS_KEY)
  for result, prefix in ((trainer.evaluate(params, "test"), ""),
                         (trainer.evaluate(params, "test", key), "drawn_")):
    result = sharding.to_host(result)
    for i, row in enumerate(rows):
      fields = report.eval_fields(trainer.task, "test", result, i)
      assert {k: row[prefix + k] for k in fields} == fields
  assert rows[0]["drawn_test_loss"] != rows[0]["test_loss"]  # other positions, other outputs
  assert not any(k.startswith("drawn_train") for k in rows[0])
  plain = checked_trainer(_config(data_dir, randomized=0))
  plain_rows = report.evaluate_all(plain, plain.init()["models"]["params"], ("train", "test"))
  assert not any(k.startswith("drawn_") for row in plain_rows for k in row)


def test_scoring_at_drawn_positions_refuses_a_run_without_randomized_positions(tmp_path, data_dir):
  """Bad input to ``experiments.randomized_eval_positions`` names the flag, its value and what is
  allowed, before any run is loaded or compiled."""
  import json
  from experiments import randomized_eval_positions
  config = _config(data_dir, randomized=0)
  (tmp_path / "config.json").write_text(json.dumps(config.to_dict()))
  with pytest.raises(ValueError, match=r"--workdir=.* is not allowed: its run has "
                     r"model\.randomized_positions = 0"):
    randomized_eval_positions.score_both_ways(str(tmp_path), draws=2)
  with pytest.raises(ValueError, match=r"--draws=0 is not allowed"):
    randomized_eval_positions.score_both_ways(str(tmp_path), draws=0)


@pytest.mark.parametrize("change, field", [
    ({"randomized_positions": -1}, "model.randomized_positions"),
    ({"randomized_positions": 8}, "model.randomized_positions"),       # fewer than the tokens
    ({"randomized_positions": M, "pe": "none"}, "model.randomized_positions"),
    ({"randomized_positions": M, "readout": "token"}, "model.randomized_positions"),
])
def test_what_cannot_work_is_refused_before_compiling(data_dir, change, field):
  config = _config(data_dir, randomized=change["randomized_positions"],
                   pe_name=change.get("pe", "learned"))
  if "readout" in change:
    config.model.readout = change["readout"]
  with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
    checked_trainer(config)


def test_a_grid_task_refuses_randomized_positions(smoke_config):
  from learnpe_jax.tasks.registry import load_task
  smoke_config.model.randomized_positions = 64
  config_validation.validate(smoke_config)
  with pytest.raises(ConfigError, match=r"model\.randomized_positions.*1-D positions"):
    config_validation.validate_with_task(smoke_config, load_task(smoke_config))
