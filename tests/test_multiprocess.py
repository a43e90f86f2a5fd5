"""Two local processes (JAX's distributed runtime on localhost, gloo collectives on CPU) run one
sweep together, and give the single-process summary."""

import json
import socket
import subprocess

import numpy as np

from tests.helpers import ROOT, main_command, run_main


def _free_port() -> int:
  with socket.socket() as s:
    s.bind(("localhost", 0))
    return s.getsockname()[1]


def test_two_process_sweep_equals_single_process(tmp_path, data_dir):
  data = f"--config.data.data_dir={data_dir}"
  single = run_main(tmp_path / "single", data)
  assert single.returncode == 0, single.stderr[-2000:]
  port = _free_port()
  procs = [subprocess.Popen(
      main_command(tmp_path / "multi", data, "--distributed",
                   f"--coordinator_address=localhost:{port}", "--num_processes=2",
                   f"--process_id={i}"),
      cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(2)]
  outs = [p.communicate(timeout=900) for p in procs]
  for p, (_, err) in zip(procs, outs):
    assert p.returncode == 0, err[-3000:]
  assert "Process 1 of 2; 1 local and 2 global devices" in outs[1][1]
  assert "| σ |" in outs[0][0] and "| σ |" not in outs[1][0]  # only process 0 prints the table
  a = json.loads((tmp_path / "single" / "summary.json").read_text())
  b = json.loads((tmp_path / "multi" / "summary.json").read_text())
  for x, y in zip(a["models"], b["models"]):
    for key in ("test_accuracy", "train_accuracy", "test_loss", "pe_rsa", "pe_norm"):
      np.testing.assert_allclose(x[key], y[key], rtol=1e-5, atol=1e-6)
