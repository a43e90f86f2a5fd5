"""Runs survive being killed and diverging models (issue: reliability)."""

import json
import os
import signal
import time

import jax
import numpy as np
import pytest

from learnpe_jax.errors import UserError
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training import loop
from learnpe_jax.training.sweep import model_axis
from learnpe_jax.training.compiled import Trainer
from tests.helpers import run_main, start_main


def _read(workdir):
  summary = json.loads((workdir / "summary.json").read_text())
  rows = [json.loads(l) for l in (workdir / "metrics.jsonl").read_text().splitlines()]
  return summary, rows


@pytest.fixture(scope="module")
def uninterrupted(smoke_cli_run):
  return _read(smoke_cli_run)


def _wait_for(predicate, proc, timeout=600):
  deadline = time.time() + timeout
  while time.time() < deadline and proc.poll() is None:
    if predicate():
      return True
    time.sleep(0.002)
  return False


@pytest.mark.e2e
@pytest.mark.parametrize("kill_point", [  # one kill point in the default suite, the others slow
    "sigkill_after_checkpoint", pytest.param("sigkill_during_save", marks=pytest.mark.slow),
    pytest.param("sigterm", marks=pytest.mark.slow)])
def test_killed_run_resumes_to_the_uninterrupted_result(tmp_path, data_dir, uninterrupted,
                                                        kill_point):
  data = f"--config.data.data_dir={data_dir}"
  ckpts = tmp_path / "checkpoints"
  proc = start_main(tmp_path, data)
  if kill_point == "sigkill_during_save":  # orbax writes into a tmp folder, then renames it
    seen = _wait_for(lambda: ckpts.exists() and any("tmp" in p for p in os.listdir(ckpts)), proc)
  else:
    seen = _wait_for(lambda: (ckpts / "100").exists(), proc)
  assert seen, "the run ended before the kill point"
  if kill_point == "sigterm":
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 143, stderr[-2000:]
    assert stderr.strip().splitlines()[-1].startswith("stopped: stopped by SIGTERM at step")
    assert not (tmp_path / "summary.json").exists()
    stopped_timing = (tmp_path / "timing.json").read_text()
  else:
    proc.send_signal(signal.SIGKILL)
    proc.wait()
  resumed = run_main(tmp_path, data)
  assert resumed.returncode == 0, resumed.stderr[-3000:]
  assert _read(tmp_path) == uninterrupted  # summary and every metrics row, bit for bit
  timing = json.loads((tmp_path / "timing.json").read_text())
  assert timing["steps"] == uninterrupted[0]["num_steps"] and timing["cores"] >= 1
  if kill_point == "sigterm":  # the stopping process wrote its time at its last checkpoint
    assert timing["processes"] == 2
    assert timing["wall_s"] > json.loads(stopped_timing)["wall_s"] > 0
    # the eval cost adds up over both processes and is a share of the wall time
    stopped = json.loads(stopped_timing)
    assert timing["pe_measures_s"] >= stopped["pe_measures_s"] > 0
    assert timing["eval_s"] >= stopped["eval_s"] > 0
    assert 0 < timing["eval_share"] < 1


@pytest.mark.slow
@pytest.mark.e2e
def test_torn_metrics_line_is_dropped_on_resume(tmp_path, data_dir, uninterrupted):
  data = f"--config.data.data_dir={data_dir}"
  proc = start_main(tmp_path, data)
  assert _wait_for(lambda: (tmp_path / "checkpoints" / "100").exists(), proc)
  proc.send_signal(signal.SIGKILL)
  proc.wait()
  with open(tmp_path / "metrics.jsonl", "a") as f:
    f.write('{"step": 150, "model": 0, "train_lo')  # a write cut short
  resumed = run_main(tmp_path, data)
  assert resumed.returncode == 0, resumed.stderr[-3000:]
  assert _read(tmp_path) == uninterrupted


def _train(config, chunks=2):
  trainer = Trainer(config, load_task(config), model_axis(config))
  init = jax.device_get(trainer.init())
  state = trainer.init()
  for _ in range(chunks):
    state, metrics = trainer.train_chunk(state)
  return init, jax.device_get(state)


@pytest.mark.slow
@pytest.mark.e2e
def test_diverging_model_is_frozen_and_others_are_bit_identical(smoke_config):
  smoke_config.train.chunk_steps = 25
  smoke_config.sweep.seeds = (0, 1)
  smoke_config.sweep.pe_init_scale = (0.1, 1e20)  # σ = 1e20 overflows LayerNorm: NaN at step 0
  init, with_bad = _train(smoke_config)
  smoke_config.sweep.pe_init_scale = (0.1, 0.5)
  _, without_bad = _train(smoke_config)
  div = with_bad["models"]["diverged_step"]
  assert div.tolist() == [-1, -1, 0, 0]
  healthy = lambda s: jax.tree.map(lambda a: a[:2], s["models"]["params"])
  for a, b in zip(jax.tree.leaves(healthy(with_bad)), jax.tree.leaves(healthy(without_bad)),
                  strict=True):
    assert np.array_equal(a, b)  # bit for bit
  frozen = lambda s: jax.tree.map(lambda a: a[2:], s["models"]["params"])
  for a, b in zip(jax.tree.leaves(frozen(with_bad)), jax.tree.leaves(frozen(init)), strict=True):
    assert np.array_equal(a, b)
  assert all(np.isfinite(a).all() for a in jax.tree.leaves(healthy(with_bad)))


@pytest.mark.e2e
def test_divergence_is_flagged_in_summary_and_table(tmp_path, smoke_config, capsys):
  smoke_config.train.num_steps = 50
  smoke_config.train.eval_every = 50
  smoke_config.train.checkpoint_every = 50
  smoke_config.sweep.pe_init_scale = (0.1, 1e20)
  summary = loop.train_and_evaluate(smoke_config, str(tmp_path))
  flags = [(m["pe_init_scale"], m["diverged"], m["diverged_step"]) for m in summary["models"]]
  assert flags == [(0.1, False, None), (0.1, False, None), (1e20, True, 0), (1e20, True, 0)]
  json.loads((tmp_path / "summary.json").read_text())  # strict JSON despite NaN losses
  table = capsys.readouterr().out
  assert "| 1e+20 |" in table and table.strip().splitlines()[-1].endswith("| 2 |")


@pytest.mark.e2e
def test_corrupt_checkpoint_gives_one_line_error_and_keeps_files(tmp_path, smoke_config):
  smoke_config.train.num_steps = 50
  smoke_config.train.eval_every = 50
  smoke_config.train.checkpoint_every = 50
  loop.train_and_evaluate(smoke_config, str(tmp_path))
  before = {p: (tmp_path / p).read_bytes() for p in ("summary.json", "metrics.jsonl")}
  for root, _, files in os.walk(tmp_path / "checkpoints" / "50"):
    for name in files:
      with open(os.path.join(root, name), "r+b") as f:
        f.truncate(max(0, os.path.getsize(os.path.join(root, name)) // 3))
  smoke_config.train.num_steps = 100
  with pytest.raises(UserError, match="checkpoint .*50 is unreadable") as e:
    loop.train_and_evaluate(smoke_config, str(tmp_path))
  assert "\n" not in str(e.value)
  assert before == {p: (tmp_path / p).read_bytes() for p in before}
