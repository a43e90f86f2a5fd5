"""The 108 human-experiment puzzles in every LST run, the similarity-to-sinusoid measure, SGD."""

import json

import jax.numpy as jnp
import numpy as np
import optax
import pytest

from learnpe_jax import evaluate
from learnpe_jax.measures import rsa
from learnpe_jax.measures.pe_metrics import reference_sinusoid
from learnpe_jax.errors import ConfigError
from learnpe_jax.positions import grid_positions
from learnpe_jax.tasks.lst import generate as ls
from learnpe_jax.tasks.lst import task as lst
from learnpe_jax.tasks.lst.puzzle_csv import read_puzzles
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training.optim import make_optimizer


@pytest.fixture
def trained(smoke_run):
  return smoke_run  # conftest.py: one trained smoke run per session


def test_shipped_human_puzzles_are_the_108_of_the_experiment():
  puzzles = read_puzzles(lst.human_puzzles_path())  # every row checked: unique, consistent answer
  assert len(puzzles["grid"]) == 108
  assert [c for c in dict.fromkeys(puzzles["condition"].tolist())] == list(ls.LEVELS)
  assert all((puzzles["condition"] == level).sum() == 36 for level in ls.LEVELS)
  assert all(len(ls.consistent_answers(g)) == 1 for g in puzzles["grid"])
  # The licence notice travels with the data.
  notice = lst.human_puzzles_path().replace("lst_human_108.csv", "LICENSE-LSTNN_public")
  assert "MIT License" in open(notice).read()


@pytest.mark.e2e
def test_human_scores_at_every_eval_and_in_the_summary(trained):
  rows = [json.loads(l) for l in open(f"{trained}/metrics.jsonl")]
  assert rows and all(0 <= r["human_accuracy"] <= 1 for r in rows)
  assert all(set(r["human_accuracy_by_level"]) == set(ls.LEVELS) for r in rows)
  summary = json.load(open(f"{trained}/summary.json"))
  assert summary["eval_sets"] == ["test", "human"]
  for m in summary["models"]:
    # 36 per level: the overall accuracy is the mean of the three levels.
    assert m["human_accuracy"] == pytest.approx(np.mean(list(
        m["human_accuracy_by_level"].values())), abs=1e-6)


@pytest.mark.e2e
def test_human_scores_equal_evaluate_on_the_shipped_file(trained):
  """The trainer's ``human`` set scores each model exactly as ``evaluate`` does on the CSV."""
  summary = json.load(open(f"{trained}/summary.json"))
  result = evaluate.evaluate(trained, lst.human_puzzles_path())
  for m, e in zip(summary["models"], result["models"], strict=True):
    assert m["human_accuracy"] == pytest.approx(e["accuracy"], abs=1e-6)
    for level in ls.LEVELS:
      assert m["human_accuracy_by_level"][level] == pytest.approx(
          e["accuracy_by_condition"][level], abs=1e-6)


def test_a_users_puzzle_file_without_levels_is_scored_overall_only(tmp_path, smoke_config):
  src = read_puzzles(lst.human_puzzles_path())
  path = tmp_path / "mine.csv"
  from learnpe_jax.tasks.lst.puzzle_csv import write_puzzles
  write_puzzles(str(path), src["grid"][:10], src["answer"][:10])
  smoke_config.data.eval_puzzles = str(path)
  task = load_task(smoke_config)
  assert task.eval_sets == ("test", "puzzles")
  assert (task.extra_eval["puzzles"]["level"] == -1).all()
  smoke_config.data.eval_puzzles = ""
  assert load_task(smoke_config).eval_sets == ("test",)


@pytest.mark.parametrize("field, value, message", [
    ("eval_puzzles", "/no/such/file.csv", "config.data.eval_puzzles='/no/such/file.csv' is not"),
    ("generator", "sudoku", "config.data.generator='sudoku' is not allowed: one of reveal, pluck"),
])
def test_bad_lst_data_fields_are_one_line_config_errors(smoke_config, field, value, message):
  smoke_config.data[field] = value
  with pytest.raises(ConfigError, match=message.replace("(", r"\(")) as e:
    load_task(smoke_config)
  assert "\n" not in str(e.value)


# ---- similarity to the fixed sinusoid ------------------------------------------------------------
def test_similarity_to_a_reference_pe():
  coords = np.asarray(grid_positions((4, 4)).coords)
  sin = reference_sinusoid(coords, 64)
  rng = np.random.default_rng(0)
  rotation, _ = np.linalg.qr(rng.normal(size=(64, 64)))
  # Invariant to what cosine similarity ignores: a rotation of the features, a per-token scale
  # (up to roundoff, which reorders the grid's many tied similarities).
  assert rsa.pe_similarity_to(sin @ rotation * rng.uniform(0.5, 2, (16, 1)), sin) == \
      pytest.approx(1.0, abs=1e-3)
  randoms = [rsa.pe_similarity_to(rng.normal(size=(16, 64)), sin) for _ in range(50)]
  assert abs(np.mean(randoms)) < 0.1
  assert np.isnan(rsa.pe_similarity_to(np.ones((16, 64)), sin))  # constant PE
  # The reference is the catalogue's 2-D sinusoid, which mirrors the grid.
  assert rsa.pe_rsa(sin, coords) > 0.9


# ---- optimizer -----------------------------------------------------------------------------------
def test_sgd_with_momentum_matches_optax_sgd(smoke_config):
  c = smoke_config.optim
  c.name, c.momentum = "sgd", 0.8
  params = {"w": jnp.arange(4.0)}
  ours, ref = make_optimizer(c, 0.05), optax.sgd(0.05, momentum=0.8)
  s_ours, s_ref = ours.init(params), ref.init(params)
  p_ours = p_ref = params
  for t in range(3):
    g = {"w": jnp.sin(p_ours["w"] + t)}
    u, s_ours = ours.update(g, s_ours, p_ours)
    v, s_ref = ref.update(g, s_ref, p_ref)
    p_ours, p_ref = optax.apply_updates(p_ours, u), optax.apply_updates(p_ref, v)
    np.testing.assert_allclose(p_ours["w"], p_ref["w"], rtol=1e-6)
