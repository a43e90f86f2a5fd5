"""The model axis sharded over 4 (virtual CPU) devices gives the single-device results."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.helpers import ROOT, main_command

pytestmark = pytest.mark.e2e  # runs in subprocesses with 4 virtual devices

FOUR_DEVICES = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}

PROBE = """
import jax, sys
sys.path.insert(0, '.')
from configs import grid2d
from learnpe_jax.tasks.registry import load_task
from learnpe_jax.training.sweep import model_axis
from learnpe_jax.training.compiled import Trainer
c = grid2d.get_config('smoke'); c.data.data_dir = sys.argv[1]
c.sweep.pe_init_scale = (0.1, 1.0, 2.0)
t = Trainer(c, load_task(c), model_axis(c))
s, _ = t.train_chunk(t.init())
kernel = s['models']['params']['embed']['kernel']
print(len(jax.devices()), len(kernel.sharding.device_set), kernel.sharding.spec[0])
"""


@pytest.mark.slow
def test_model_axis_is_sharded_over_the_devices_that_divide_it(data_dir):
  out = subprocess.run([sys.executable, "-c", PROBE, data_dir], cwd=ROOT, env=FOUR_DEVICES,
                       capture_output=True, text=True, timeout=600)
  assert out.returncode == 0, out.stderr[-2000:]
  # 6 models (3 σ × 2 seeds) on 4 devices: the largest divisor, 3 devices, each holding 2 models.
  assert out.stdout.splitlines()[-1].split() == ["4", "3", "models"]


def test_sharded_sweep_gives_the_single_device_summary(tmp_path, data_dir, smoke_cli_run):
  cmd = main_command(tmp_path, f"--config.data.data_dir={data_dir}")
  out = subprocess.run(cmd, cwd=ROOT, env=FOUR_DEVICES, capture_output=True, text=True, timeout=600)
  assert out.returncode == 0, out.stderr[-2000:]
  one = json.loads((smoke_cli_run / "summary.json").read_text())
  four = json.loads((tmp_path / "summary.json").read_text())
  for a, b in zip(one["models"], four["models"], strict=True):
    assert a.keys() == b.keys()
    for key in ("test_accuracy", "train_accuracy", "test_loss", "pe_rsa", "pe_norm"):
      np.testing.assert_allclose(a[key], b[key], rtol=1e-5, atol=1e-6)
