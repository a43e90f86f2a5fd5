"""experiments/launch.py: jobs that change shapes run one after another and gather into one table."""

import json
import subprocess
import sys

from tests.helpers import ROOT


def test_launcher_runs_resumes_and_gathers(tmp_path, data_dir):
  common = {"data.data_dir": data_dir, "train.num_steps": 50, "train.eval_every": 50,
            "train.checkpoint_every": 50, "sweep.seeds": [0]}
  jobs = [{"name": "w16", "config": "configs/grid2d.py:smoke",
           "overrides": {**common, "model.width": 16}},
          {"name": "sin1d", "config": "configs/grid2d.py:smoke,pe=sinusoidal_1d",
           "overrides": common}]
  (tmp_path / "jobs.json").write_text(json.dumps(jobs))
  launch = [sys.executable, "experiments/launch.py", f"--jobs={tmp_path / 'jobs.json'}",
            f"--root={tmp_path / 'runs'}"]
  printed = subprocess.run(launch + ["--print"], cwd=ROOT, capture_output=True, text=True)
  lines = printed.stdout.strip().splitlines()
  assert len(lines) == 2 and "--config.model.width=16" in lines[0]
  assert "'--config.sweep.seeds=(0,)'" in lines[0]
  ran = subprocess.run(launch, cwd=ROOT, capture_output=True, text=True, timeout=900)
  assert ran.returncode == 0, ran.stderr[-2000:]
  table = json.loads((tmp_path / "runs" / "table.json").read_text())
  assert [r["job"] for r in table] == ["w16", "sin1d"]
  assert [r["pe"] for r in table] == ["learned", "sinusoidal_1d"]
  assert len(table[0]["models"]) == 2 and len(table[1]["models"]) == 1
  again = subprocess.run(launch, cwd=ROOT, capture_output=True, text=True, timeout=900)
  assert again.stdout.count("finished, skipped") == 2
