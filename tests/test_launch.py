"""experiments.launch, .runner and .cluster: jobs that change shapes run (resumably) and gather into
one table; their commands for TPU VMs and SLURM; a failed job is reported, not hidden."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT


@pytest.mark.e2e
def test_launcher_runs_resumes_and_gathers(tmp_path, data_dir):
  common = {"data.data_dir": data_dir, "train.num_steps": 50, "train.eval_every": 50,
            "train.checkpoint_every": 50, "sweep.seeds": [0]}
  jobs = [{"name": "w16", "config": "configs/grid2d.py:smoke",
           "overrides": {**common, "model.width": 16}},
          {"name": "sin1d", "config": "configs/grid2d.py:smoke,pe=sinusoidal_1d",
           "overrides": common}]
  (tmp_path / "jobs.json").write_text(json.dumps(jobs))
  launch = [sys.executable, "-m", "experiments.launch", f"--jobs={tmp_path / 'jobs.json'}",
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


def _summary(pe: str, sigmas=(0.1, 1.0), seeds=(0, 1)) -> dict:
  """A finished job's summary.json, as learnpe_jax.main writes it (the fields the table reads)."""
  models = [{"model": i, "pe_init_scale": s, "learning_rate": 1e-3, "seed": seed,
             "train_accuracy": 0.9 - 0.1 * s + 0.01 * seed, "test_accuracy": 0.8 - 0.1 * s,
             "pe_rsa": 0.3 / s, "pe_rsa_init": 0.0, "diverged": False}
            for i, (s, seed) in enumerate((s, seed) for s in sigmas for seed in seeds)]
  return {"task": "lst", "pe": pe, "num_steps": 250000, "eval_sets": ["test"], "models": models}


def _launch(*args, env=None):
  return subprocess.run([sys.executable, "-m", "experiments.launch", *map(str, args)], cwd=ROOT,
                        capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.e2e
def test_commands_for_tpu_vms_and_a_slurm_array(tmp_path):
  jobs = [{"name": f"pe_{n}", "config": f"configs/grid2d.py:pe={n},paper"}
          for n in ("learned", "sinusoidal_nd", "rope")]
  (tmp_path / "jobs.json").write_text(json.dumps(jobs))
  base = ["--jobs", tmp_path / "jobs.json", "--root=gs://bucket/runs/pe"]
  printed = _launch(*base, "--print").stdout.strip().splitlines()
  assert printed == [f"python -m learnpe_jax.main --config=configs/grid2d.py:pe={n},paper "
                     f"--workdir=gs://bucket/runs/pe/pe_{n}"
                     for n in ("learned", "sinusoidal_nd", "rope")]
  vms = _launch(*base, "--print", "--tpu_vms=2", "--main_flag=--distributed").stdout
  assert vms.count("#!/bin/bash") == 2 and vms.count("--distributed") == 3
  assert "# TPU VM 0 of 2: 2 job(s)" in vms and "# TPU VM 1 of 2: 1 job(s)" in vms
  out = _launch(*base, f"--write_tpu={tmp_path / 'tpu'}", "--tpu_vms=2",
                "--main_flag=--distributed")
  assert out.returncode == 0, out.stderr
  assert sorted(os.listdir(tmp_path / "tpu")) == ["tpu_vm_0.sh", "tpu_vm_1.sh"]
  assert "--worker=all" in out.stdout and "tpu_vm_1.sh" in out.stdout
  slurm = tmp_path / "slurm" / "array.sh"
  out = _launch(*base, f"--write_slurm={slurm}")
  assert out.returncode == 0, out.stderr
  text = slurm.read_text()
  assert "#SBATCH --array=0-2" in text and "#SBATCH --requeue" in text
  assert [l for l in text.splitlines() if "learnpe_jax.main" in l] == [
      f"  '{line}'" for line in printed]  # one job per line
  for script in (slurm, tmp_path / "tpu" / "tpu_vm_0.sh"):
    assert subprocess.run(["bash", "-n", script]).returncode == 0
  # The scripts run their lines: here with a stand-in for python that prints its arguments and
  # exits with $STATUS.
  (tmp_path / "bin").mkdir()
  (tmp_path / "bin" / "python").write_text('#!/bin/bash\necho "$@"\nexit ${STATUS:-0}\n')
  (tmp_path / "bin" / "python").chmod(0o755)
  env = {**os.environ, "SLURM_ARRAY_TASK_ID": "1", "SLURM_SUBMIT_DIR": ROOT,
         "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}
  ran = subprocess.run(["bash", slurm], capture_output=True, text=True, env=env)
  assert ran.stdout.strip() == printed[1].removeprefix("python ")
  vm0 = tmp_path / "tpu" / "tpu_vm_0.sh"  # jobs 0 and 2
  failed = subprocess.run(["bash", vm0], capture_output=True, text=True, env={**env, "STATUS": "2"})
  assert failed.returncode == 0 and failed.stdout.count("learnpe_jax.main") == 2  # goes on
  assert failed.stderr.count("failed (2)") == 2
  stopped = subprocess.run(["bash", vm0], capture_output=True, text=True,
                           env={**env, "STATUS": "143"})
  assert stopped.returncode == 143 and stopped.stdout.count("learnpe_jax.main") == 1  # pre-empted


@pytest.mark.e2e
def test_gather_reads_finished_summaries_from_a_bucket(tmp_path):
  """--gather on a bucket (the fake remote filesystem) holding two finished jobs and one that is not."""
  jobs = [{"name": "paper/lst_learned", "config": "configs/grid2d.py:pe=learned,paper"},
          {"name": "paper/lst_rope_1d", "config": "configs/grid2d.py:pe=rope,paper"},
          {"name": "paper/lst_nope", "config": "configs/grid2d.py:pe=none,paper"}]
  (tmp_path / "jobs.json").write_text(json.dumps(jobs))
  store = tmp_path / "store"
  for name, pe in (("lst_learned", "learned"), ("lst_rope_1d", "rope")):
    (store / "bucket" / "claims" / "paper" / name).mkdir(parents=True)
    (store / "bucket" / "claims" / "paper" / name / "summary.json").write_text(
        json.dumps(_summary(pe)))
  env = {**os.environ, "LEARNPE_JAX_PATH_PLUGINS": "tests.fake_remote_fs",
         "FAKE_REMOTE_ROOT": str(store)}
  out = _launch("--jobs", tmp_path / "jobs.json", "--root=fake://bucket/claims", "--gather",
                f"--table_dir={tmp_path / 'table'}", env=env)
  assert out.returncode == 0, out.stderr
  table = json.loads((tmp_path / "table" / "table.json").read_text())
  assert [r["job"] for r in table] == ["paper/lst_learned", "paper/lst_rope_1d"]
  md = (tmp_path / "table" / "table.md").read_text()
  assert md.strip() == out.stdout.strip()  # printed and written: the same table
  assert "### paper/lst_nope\n\n(not finished)" in md
  assert "| 0.1 | 2 | 0.895 ± 0.007 | 0.790 ± 0.000 |" in md


@pytest.mark.e2e
def test_claim_jobs_at_paper_scale_go_through_the_launcher(tmp_path):
  claim1 = [sys.executable, "-m", "experiments.claim1_lst_geometry", "--scale=paper",
            "--root=gs://bucket/claims"]
  printed = subprocess.run(claim1 + ["--print"], cwd=ROOT, capture_output=True, text=True)
  assert printed.stdout.splitlines() == [
      "python -m learnpe_jax.main --config=configs/grid2d.py:pe=learned,paper "
      "--workdir=gs://bucket/claims/paper/lst_learned"]
  out = subprocess.run(claim1 + [f"--write_slurm={tmp_path / 'a.sh'}"], cwd=ROOT,
                       capture_output=True, text=True)
  assert out.returncode == 0 and "#SBATCH --array=0-0" in (tmp_path / "a.sh").read_text()
  refused = subprocess.run(claim1, cwd=ROOT, capture_output=True, text=True)
  assert refused.returncode != 0 and "--scale=paper is a GPU/TPU job" in refused.stderr
  root = tmp_path / "claims"
  (root / "paper" / "lst_learned").mkdir(parents=True)
  (root / "paper" / "lst_learned" / "summary.json").write_text(json.dumps(_summary("learned")))
  gathered = subprocess.run(
      [sys.executable, "-m", "experiments.claim1_lst_geometry", "--scale=paper", f"--root={root}",
       "--gather"], cwd=ROOT, capture_output=True, text=True)
  assert gathered.returncode == 0, gathered.stderr
  assert "### paper/lst_learned" in gathered.stdout and (root / "table.md").exists()


@pytest.mark.e2e
def test_a_failed_job_is_reported_and_the_others_run(tmp_path):
  """runner.run_jobs: a job that fails (here: its config file does not exist) does not stop the
  next; it is returned (check=False) or stops the program (check=True); its one-line error is in
  its train.log, where runner.error_line reads it (the benchmark's table shows it)."""
  from experiments.framework import runner
  bad = runner.Job("bad", "configs/nope.py")
  skipped = runner.Job("skipped", "configs/nope.py")
  (tmp_path / "skipped").mkdir()
  (tmp_path / "skipped" / "summary.json").write_text("{}")  # finished: never started
  assert runner.run_jobs([bad, skipped], str(tmp_path), check=False) == ["bad"]
  assert not (tmp_path / "skipped" / "train.log").exists()
  error = runner.error_line(bad, str(tmp_path))
  assert error.startswith("cannot load --config") and "\n" not in error
  assert runner.error_line(skipped, str(tmp_path)) is None
  with pytest.raises(SystemExit, match="job\\(s\\) bad failed"):
    runner.run_jobs([bad], str(tmp_path), done=lambda job, root: False)
