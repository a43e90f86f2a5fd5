"""Two local processes (JAX's distributed runtime on localhost, gloo collectives on CPU) run one
sweep together, and give the single-process summary; a SIGTERM to one of them stops both at the
same step with one checkpoint, and the rerun ends where an uninterrupted run ends."""

import json
import os
import signal
import socket
import subprocess
import time

import numpy as np
import pytest

from tests.helpers import ROOT, main_command

pytestmark = pytest.mark.e2e  # two processes of the CLI


def _free_port() -> int:
  with socket.socket() as s:
    s.bind(("localhost", 0))
    return s.getsockname()[1]


def _start_pair(workdir, data):
  port = _free_port()
  return [subprocess.Popen(
      main_command(workdir, data, "--distributed",
                   f"--coordinator_address=localhost:{port}", "--num_processes=2",
                   f"--process_id={i}"),
      cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]


def _assert_same_models(a, b):
  for x, y in zip(a["models"], b["models"], strict=True):
    for key in ("test_accuracy", "train_accuracy", "test_loss", "pe_rsa", "pe_norm"):
      np.testing.assert_allclose(x[key], y[key], rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def single(smoke_cli_run):
  return json.loads((smoke_cli_run / "summary.json").read_text())


@pytest.fixture(scope="module")
def pair(tmp_path_factory, data_dir):
  """An uninterrupted two-process run: (workdir, the two processes' (stdout, stderr))."""
  workdir = tmp_path_factory.mktemp("pair")
  procs = _start_pair(workdir, f"--config.data.data_dir={data_dir}")
  outs = [p.communicate(timeout=900) for p in procs]
  for p, (_, err) in zip(procs, outs):
    assert p.returncode == 0, err[-3000:]
  return workdir, outs


@pytest.mark.slow  # ~2 min; the multi-device sweep in one process is in tests/test_sharding.py
def test_two_process_sweep_equals_single_process(single, pair):
  workdir, outs = pair
  assert "Process 1 of 2; 1 local and 2 global devices" in outs[1][1]
  assert "| σ |" in outs[0][0] and "| σ |" not in outs[1][0]  # only process 0 prints the table
  _assert_same_models(single, json.loads((workdir / "summary.json").read_text()))
  written = sorted(p for p in os.listdir(workdir) if not p.startswith("."))
  assert written == ["checkpoints", "config.json", "metrics.jsonl", "summary.json"]


@pytest.mark.slow  # ~1.5 min; tests/test_reliability.py covers SIGTERM and resume in one process
def test_sigterm_to_one_process_stops_both_at_one_step_and_resumes(tmp_path, data_dir, single,
                                                                    pair):
  data = f"--config.data.data_dir={data_dir}"
  workdir = tmp_path / "multi"
  procs = _start_pair(workdir, data)
  deadline = time.time() + 600
  while not (workdir / "checkpoints" / "100").exists():
    assert time.time() < deadline and all(p.poll() is None for p in procs), "ended before step 100"
    time.sleep(0.005)
  procs[1].send_signal(signal.SIGTERM)  # pre-emption of one host only
  outs = [p.communicate(timeout=600) for p in procs]
  assert [p.returncode for p in procs] == [143, 143], [err[-2000:] for _, err in outs]
  last = [err.strip().splitlines()[-1] for _, err in outs]
  steps = [int(line.split(" at step ")[1].split(";")[0]) for line in last]
  assert last[1].startswith("stopped: stopped by SIGTERM at step")
  assert "(sent to another process of this job)" in last[0]
  assert steps[0] == steps[1] and 100 < steps[0] < 200, last
  ckpts = sorted(os.listdir(workdir / "checkpoints"))
  assert max(int(c) for c in ckpts if c.isdigit()) == steps[0]  # one checkpoint at that step
  assert all(c.isdigit() for c in ckpts), ckpts  # no half-written step folder left
  assert not (workdir / "summary.json").exists()
  procs = _start_pair(workdir, data)
  outs = [p.communicate(timeout=900) for p in procs]
  for p, (_, err) in zip(procs, outs):
    assert p.returncode == 0, err[-3000:]
  assert f"Resumed from checkpoint at step {steps[0]}" in outs[0][1]
  # The same files as the uninterrupted two-process run, bit for bit, and the single-process result.
  for name in ("summary.json", "metrics.jsonl"):
    assert (workdir / name).read_text() == (pair[0] / name).read_text(), name
  _assert_same_models(single, json.loads((workdir / "summary.json").read_text()))
