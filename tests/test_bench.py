"""The throughput benchmark runs the real trainer and reports every documented field."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT

FIELDS = ("model_steps_per_sec", "examples_per_sec", "train_flops_per_model_step",
          "model_flops_per_model_step", "achieved_gflops", "matmul_peak_gflops", "mfu", "hfu",
          "compile_sec", "peak_rss_mb", "num_models", "devices")


@pytest.mark.slow
@pytest.mark.e2e
def test_bench_prints_one_json_line_with_every_field(data_dir):
  out = subprocess.run([sys.executable, "-m", "learnpe_jax.throughput", "--config=configs/grid2d.py:smoke",
                        "--num_models=2", "--chunks=1", "--chunk_steps=5",
                        f"--config.data.data_dir={data_dir}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
  assert out.returncode == 0, out.stderr[-2000:]
  r = json.loads(out.stdout.strip().splitlines()[-1])
  assert set(FIELDS) <= set(r)
  assert r["num_models"] == 2 and r["model_steps_per_sec"] > 0
  # The smoke model (width 32, 2 blocks, MLP ×4, batch 128 × 16 tokens) does ≈ 13k multiply-adds
  # per token and block forward: ≈ 0.11 GFLOP forward, ≈ 0.33 with the backward pass.
  assert 1.5e8 < r["train_flops_per_model_step"] < 1e9
  achieved = r["train_flops_per_model_step"] * r["model_steps_per_sec"] / 1e9
  assert r["achieved_gflops"] == pytest.approx(achieved, rel=0.01, abs=0.01)
  assert 0 < r["mfu"] < 2
  # The exact shortcuts (readout 'last', post-norm) execute fewer FLOPs than the plain model.
  assert r["train_flops_per_model_step"] < 0.9 * r["model_flops_per_model_step"]


@pytest.mark.slow
def test_k_curve_writes_rows_and_a_figure(tmp_path, data_dir):
  out = subprocess.run([sys.executable, "benchmarks/k_curve.py", "--config=configs/grid2d.py:smoke",
                        "--ks=1,2", "--layouts=groups,2 devices", "--chunks=1", "--chunk_steps=5",
                        f"--out={tmp_path / 'k.png'}", f"--config.data.data_dir={data_dir}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=900)
  assert out.returncode == 0, out.stderr[-2000:]
  rows = json.loads((tmp_path / "k.json").read_text())["rows"]
  assert [(r["layout"], r["num_models"]) for r in rows] == [("groups", 1), ("groups", 2),
                                                            ("2 devices", 2)]
  assert len(rows[-1]["devices"]) == 2 and len(rows[0]["devices"]) == 1
  assert (tmp_path / "k.png").stat().st_size > 1000


@pytest.mark.slow
def test_gpu_sweep_script_writes_one_line_per_run(tmp_path, data_dir):
  """The prepared accelerator script, run on the CPU with the smoke config and K = 1."""
  out = subprocess.run(["bash", "benchmarks/gpu_sweep.sh", "configs/grid2d.py:smoke", "1",
                        f"--config.data.data_dir={data_dir}"],
                       cwd=ROOT, capture_output=True, text=True, timeout=900,
                       env={**os.environ, "OUT": str(tmp_path)})
  assert out.returncode == 0, out.stderr[-2000:]
  rows = [json.loads(line) for line in (tmp_path / "gpu_sweep.jsonl").read_text().splitlines()]
  assert [r["dtype"] for r in rows] == ["float32", "bfloat16"]
  assert all(r["bench"]["num_models"] == 1 and r["bench"]["model_steps_per_sec"] > 0 for r in rows)
