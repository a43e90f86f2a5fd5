"""Shared test helpers: run the launcher as a user would."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE_RUN_STEPS = 100  # the session's smoke run (conftest.smoke_run, bad_inputs.make_smoke_run)


def main_command(workdir, *overrides, config="configs/grid2d.py:smoke"):
  return [sys.executable, "-m", "learnpe_jax.main", f"--config={config}", f"--workdir={workdir}",
          *map(str, overrides)]


def run_main(workdir, *overrides, config="configs/grid2d.py:smoke", timeout=900):
  """``python -m learnpe_jax.main`` in a subprocess; returns the CompletedProcess."""
  return subprocess.run(main_command(workdir, *overrides, config=config), cwd=ROOT,
                        capture_output=True, text=True, timeout=timeout)


def start_main(workdir, *overrides, config="configs/grid2d.py:smoke"):
  return subprocess.Popen(main_command(workdir, *overrides, config=config), cwd=ROOT,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def train_chunks(config, chunks):
  """The state after ``chunks`` compiled chunks of ``config``'s sweep (on the host)."""
  import jax
  from learnpe_jax.tasks.registry import load_task
  from learnpe_jax.training.sweep import model_axis
  from learnpe_jax.training.compiled import Trainer
  trainer = Trainer(config, load_task(config), model_axis(config))
  state = trainer.init()
  for _ in range(chunks):
    state, _ = trainer.train_chunk(state)
  return jax.device_get(state)


def assert_sweep_equals_single_runs(config, chunks=2):
  """Every model of the vmapped sweep of ``config`` ends with the parameters it has when trained
  alone (its σ and seed only); returns the sweep's state."""
  import jax
  import numpy as np
  from learnpe_jax.training.sweep import model_axis
  joint = train_chunks(config, chunks)
  for i, rec in enumerate(model_axis(config).records):
    single = config.copy_and_resolve_references()
    single.sweep.pe_init_scale = (rec["pe_init_scale"],)
    single.sweep.seeds = (rec["seed"],)
    alone = train_chunks(single, chunks)
    flat_joint = jax.tree.leaves(jax.tree.map(lambda a: a[i], joint["models"]["params"]))
    flat_alone = jax.tree.leaves(jax.tree.map(lambda a: a[0], alone["models"]["params"]))
    for a, b in zip(flat_joint, flat_alone, strict=True):
      np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5)
  return joint


def jit_in_the_fast_tier(fn):
  """``jax.jit(fn)`` in a session that compiles without XLA's optimisation passes (the fast unit
  tier, ``conftest.py``), else ``fn`` as it is. For a whole encoder's init or value-and-grad, one
  unoptimised compile costs less than running it op by op; under XLA's defaults (the default suite)
  the compile cost about twice the CPU of running it op by op (the shortcut-encoder checks)."""
  import jax
  return jax.jit(fn) if jax.config.read("jax_disable_most_optimizations") else fn


def words_of(path: str) -> str:
  """The text of the file at ``path`` with every run of whitespace made one space, so that a
  phrase of the docs is found whatever its line breaks."""
  with open(path) as f:
    return " ".join(f.read().split())


def one_per_group(values, group_of, extra=()):
  """pytest params over ``values`` (and ``extra`` params, kept in the fast tier): the first value
  of each ``group_of(value)`` stays in the fast unit tier, the rest are marked ``e2e``, so
  ``-m "not slow and not e2e"`` checks every group once and the default run checks every value."""
  import pytest
  seen, params = set(), []
  for value in values:
    group = group_of(value)
    params.append(pytest.param(value, marks=(pytest.mark.e2e,) if group in seen else ()))
    seen.add(group)
  return params + [pytest.param(e) for e in extra]


def one_per_mechanism(names, extra=()):
  """``one_per_group`` over PE ``names`` by catalogue mechanism: the fast tier checks each
  mechanism once, the default run every PE."""
  from learnpe_jax.pe import get_spec
  return one_per_group(names, lambda name: get_spec(name).mechanism, extra)


def probe_rows(job_of, curves):
  """Eval rows of length-budget probe jobs: ``curves`` = {key: {lr: [worst seen score per
  evaluation]}}, ``job_of(key)`` the job's name; every training length (n ≤ 8) scores the value,
  every unseen one 0, evaluations every ``length_budget.EVERY`` steps."""
  from experiments import length_budget
  rows = []
  for key, by_lr in curves.items():
    for lr, scores in by_lr.items():
      for i, score in enumerate(scores):
        levels = {f"n={n}": score if n <= 8 else 0.0 for n in range(1, 17)}
        rows.append({"job": job_of(key), "step": (i + 1) * length_budget.EVERY,
                     "learning_rate": lr, "test_accuracy_by_level": levels})
  return rows


def kept_seen_scores(study_dir: str, job_name: str) -> dict[float, list[float]]:
  """{learning rate: [worst training length's exact match at each evaluation]} of one job, read
  from the records a study keeps (the probe's ``seen_curves`` without the steps)."""
  from experiments import length_budget
  from experiments.framework import records
  curves = length_budget.seen_curves(records.read_curves(study_dir), job_name)
  return {lr: [score for _, score in curve] for lr, curve in curves.items()}


def trained_to_the_cap(curves: dict[float, list[float]]) -> bool:
  """Whether a randomized or learned-table probe's kept curves (``kept_seen_scores``) have every
  learning rate of the probe and an evaluation every ``EVERY`` steps up to its cap."""
  from experiments import length_budget, length_budget_randomized
  evaluations = length_budget_randomized.MAX_STEPS // length_budget.EVERY + 1
  return (sorted(curves) == sorted(length_budget.LEARNING_RATES)
          and all(len(c) == evaluations for c in curves.values()))


def length_smoke_config(data_dir, pe_name="learned", randomized=0, trim_padding=False):
  """``configs/length1d.py:smoke`` with its data under ``data_dir``, one chunk of 10 steps."""
  from configs import length1d
  config = length1d.get_config(f"smoke,pe={pe_name}")
  config.data.data_dir = data_dir
  config.model.randomized_positions = randomized
  config.train.trim_padding = trim_padding
  config.train.chunk_steps = config.train.log_every = 10
  config.train.num_steps = config.train.eval_every = config.train.checkpoint_every = 10
  return config


def checked_trainer(config):
  """The ``Trainer`` of ``config`` after both config checks, as ``main`` builds it."""
  from learnpe_jax.tasks.registry import load_task
  from learnpe_jax.training import config_validation
  from learnpe_jax.training.compiled import Trainer
  from learnpe_jax.training.sweep import model_axis
  task = load_task(config)
  config_validation.validate(config)
  config_validation.validate_with_task(config, task)
  return Trainer(config, task, model_axis(config))
