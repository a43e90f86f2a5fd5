"""experiments.length_curves: seen/unseen accuracy, the side-by-side rule with the paper and the
closer-to-no-PE rule, on known numbers; the benchmark's length rows."""

import pytest

from experiments import benchmark, length_curves


def _model(curve, sigma=1.0, seed=0, trained=2):
  """A record with test accuracy ``curve`` over n = 1…len(curve), trained on n ≤ ``trained``."""
  return {"pe_init_scale": sigma, "seed": seed,
          "test_accuracy_by_level": {f"n={n}": v for n, v in enumerate(curve, 1)},
          "train_accuracy_by_level": {f"n={n}": 1.0 for n in range(1, trained + 1)}}


def test_seen_and_unseen_are_the_training_lengths_and_the_rest():
  assert length_curves.seen_unseen(_model([1, 1, 0.5, 0.0])) == (1.0, 0.25)
  assert length_curves.seen_unseen(_model([1, 1, 0.5, 0.0], trained=3)) == (2.5 / 3, 0.0)
  assert length_curves.unseen_lengths(_model([1, 1, 0.5, 0.0], trained=1)) == [2, 3, 4]


def _records(unseen: dict):
  out = []
  for row, value in unseen.items():
    for sigma, v in (value.items() if isinstance(value, dict) else [(1.0, value)]):
      out.append({"row": row, "sigma": sigma, "score": {"mean": v}})
  return out


def test_side_by_side_needs_nope_ahead_on_two_of_three_problems():
  ahead = {"none": 0.5, "rope": 0.2, "sinusoidal_1d": 0.1, "learned": {0.1: 0.3, 2.0: 0.1},
           "t5_bias": 0.4, "alibi": 0.3}
  behind = dict(ahead, rope=0.6)
  got = length_curves.side_by_side({"copy": _records(ahead), "reverse": _records(ahead),
                                    "addition": _records(behind)})
  assert got["verdict"] == "agrees" and got["tasks_where_nope_leads"] == 2
  got = length_curves.side_by_side({"copy": _records(ahead), "reverse": _records(behind),
                                    "addition": _records(behind)})
  assert got["verdict"] == "disagrees"
  assert length_curves.side_by_side({"copy": _records(ahead)})["verdict"] == "incomplete"


def test_closer_to_no_pe_is_paired_by_seed():
  nope = [_model([1, 1, 0.4, 0.2], seed=s) for s in range(3)]
  close = [_model([1, 1, 0.4 + d, 0.2], 0.1, s) for s, d in enumerate((0.01, 0.02, 0.0))]
  far = [_model([1, 1, 0.0, 0.0], 2.0, s) for s in range(3)]
  got = length_curves.closer_to_none({"none": nope, "learned": close + far}, 0.1, 2.0)
  assert got["verdict"] == "small σ closer" and got["gap_small"]["mean"] < 0.02
  assert length_curves.closer_to_none({"none": nope}, 0.1, 2.0) is None


@pytest.mark.parametrize("task", benchmark.LENGTH_TASKS)
def test_length_rows_are_decoders_on_their_problem(task):
  from learnpe_jax.training import config_validation
  from learnpe_jax.pe.registry import get_spec
  rows = benchmark.rows(task)
  assert [r.name for r in rows] == list(benchmark.LENGTH_PES)
  for row in rows:
    config = row.job.build_config()
    config_validation.validate(config)
    assert config.model.causal and config.data.problem == task
    expected = benchmark.SIGMAS if get_spec(row.pe).learnable else (1.0,)
    assert tuple(config.sweep.pe_init_scale) == expected
