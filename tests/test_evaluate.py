"""``evaluate`` scores a run's models on a puzzle file exactly as the trainer scores its test split."""

import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

from learnpe_jax import evaluate
from learnpe_jax.tasks.lst import generate as ls
from learnpe_jax.tasks.lst import tfds_builder as latin_square_tfds, puzzle_csv
from learnpe_jax.training.restore import load_run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _write_test_puzzles(config, path, with_condition=True):
  raw = latin_square_tfds.load(os.path.expanduser(config.data.data_dir),
                               config.data.num_per_level, config.data.seed,
                               config.data.test_fraction)["test"]
  cond = [ls.LEVELS[l] for l in raw["level"]] if with_condition else None
  puzzle_csv.write_puzzles(str(path), raw["grid"], raw["answer"], cond)


def _check_matches_trainer(workdir, csv_path, batch_size=512):
  result = evaluate.evaluate(workdir, str(csv_path), batch_size=batch_size)
  run = load_run(workdir)
  test = jax.device_get(run.trainer.evaluate(run.params, "test"))
  assert result["num_puzzles"] == len(run.task.test["target"])
  assert len(result["models"]) == run.axis.size
  for i, m in enumerate(result["models"]):
    assert m["accuracy"] == pytest.approx(float(test["score"][i]), abs=1e-6)
    for j, level in enumerate(ls.LEVELS):
      assert m["accuracy_by_condition"][level] == pytest.approx(
          float(test["score_by_level"][i][j]), abs=1e-6)
  return result


@pytest.fixture
def workdir(smoke_run):
  return smoke_run  # conftest.py: one trained smoke run per session


@pytest.mark.e2e
def test_evaluate_on_the_test_puzzles_matches_the_trainer(workdir, tmp_path):
  from learnpe_jax.training.restore import load_config
  csv_path = tmp_path / "heldout.csv"
  _write_test_puzzles(load_config(workdir), csv_path)
  result = _check_matches_trainer(workdir, csv_path, batch_size=7)  # ragged last batch
  assert result["conditions"] == list(ls.LEVELS)
  on_disk = json.load(open(os.path.join(workdir, "eval_heldout.json")))
  assert on_disk["models"] == result["models"]
  table = evaluate.format_table(result)
  assert "| 0.02 | 2 |" in table and "quaternary" in table


@pytest.mark.e2e  # trains and evaluates a run
def test_evaluate_respects_a_scrambled_cell_order(tmp_path, data_dir):
  """Models at init (config.json only), tokens in a fixed scrambled order: same scores again."""
  from configs import grid2d
  config = grid2d.get_config("smoke")
  config.data.data_dir = data_dir
  config.data.scramble_cells = True
  (tmp_path / "config.json").write_text(config.to_json_best_effort())
  _write_test_puzzles(config, tmp_path / "p.csv")
  _check_matches_trainer(str(tmp_path), tmp_path / "p.csv")


@pytest.mark.e2e
def test_noise_lowers_accuracy_reproducibly(workdir, tmp_path):
  from learnpe_jax.training.restore import load_config
  csv_path = tmp_path / "plain.csv"
  _write_test_puzzles(load_config(workdir), csv_path, with_condition=False)
  a = evaluate.evaluate(workdir, str(csv_path), noise_sd=5.0, noise_seed=1)
  b = evaluate.evaluate(workdir, str(csv_path), noise_sd=5.0, noise_seed=1)
  assert a["conditions"] == ["all"]
  noisy = [m["noisy_accuracy"] for m in a["models"]]
  assert noisy == [m["noisy_accuracy"] for m in b["models"]]
  assert np.mean(noisy) < np.mean([m["accuracy"] for m in a["models"]])
  assert "noise sd 5" in evaluate.format_table(a)


@pytest.mark.parametrize("content, message", [
    ("1,2,3\n", "bad.csv row 1: expected 17 fields"),
    ("", "bad.csv: empty puzzle file"),
])
@pytest.mark.e2e
def test_bad_csv_exits_2_with_one_line(workdir, tmp_path, content, message):
  (tmp_path / "bad.csv").write_text(content)
  r = subprocess.run([sys.executable, "-m", "learnpe_jax.evaluate", f"--workdir={workdir}",
                      f"--puzzles={tmp_path / 'bad.csv'}"], capture_output=True, text=True,
                     cwd=ROOT, timeout=120)
  assert r.returncode == 2
  lines = r.stderr.strip().splitlines()
  assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0]


@pytest.mark.e2e
def test_cli_prints_per_condition_table(workdir, tmp_path):
  from learnpe_jax.training.restore import load_config
  _write_test_puzzles(load_config(workdir), tmp_path / "mine.csv")
  r = subprocess.run([sys.executable, "-m", "learnpe_jax.evaluate", f"--workdir={workdir}",
                      f"--puzzles={tmp_path / 'mine.csv'}", "--noise_sd=0.5"],
                     capture_output=True, text=True, cwd=ROOT, timeout=300)
  assert r.returncode == 0, r.stderr[-2000:]
  assert "| σ | seeds | accuracy | binary | ternary | quaternary | accuracy, noise sd 0.5 |" in r.stdout
  assert os.path.exists(os.path.join(workdir, "eval_mine.json"))


def test_a_run_on_another_task_is_refused_in_one_line(tmp_path, data_dir):
  from configs import netsim
  from learnpe_jax.errors import UserError
  config = netsim.get_config("smoke")
  (tmp_path / "config.json").write_text(config.to_json_best_effort())
  puzzle_csv.write_puzzles(str(tmp_path / "p.csv"), np.array([[1, 2, 3, 5] + [0] * 12]),
                           np.array([4]))
  with pytest.raises(UserError, match="is a 'netsim' run; evaluate scores Latin Square Task"):
    evaluate.evaluate(str(tmp_path), str(tmp_path / "p.csv"))
