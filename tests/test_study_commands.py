"""Every study job's command line builds the config its ``Job.build_config`` describes: the flags
``learnpe_jax.main`` parses (ml_collections' ``--config.x=…``) give the same values as the
overrides applied in Python. (A tuple of strings written without quotes, ``(linear,ntk)``, is read
by the flag parser as one string; this caught it.)"""

import importlib

import pytest
from absl import flags
from ml_collections import config_flags

# ml_collections loads a config file with importlib's load_module (its warning, not ours)
pytestmark = pytest.mark.filterwarnings("ignore:the load_module:DeprecationWarning")

STUDIES = ("benchmark", "companion", "cpu_default", "length_budget", "length_budget_learned",
           "length_budget_randomized",
           "length_study", "optimizer",
           "text_extrapolation")


def _parsed(job):
  command = job.command("runs")
  args = [a for a in command if a.startswith("--config")]
  values = flags.FlagValues()
  config_flags.DEFINE_config_file("config", None, "", flag_values=values, sys_argv=["main", *args])
  values(["main", *args])
  return values.config


def _jobs():
  for name in STUDIES:
    for job in importlib.import_module(f"experiments.{name}").STUDY.jobs:
      yield pytest.param(job, id=f"{name}/{job.name}")


@pytest.mark.parametrize("job", list(_jobs()))
def test_a_jobs_command_line_builds_its_config(job):
  parsed, built = _parsed(job), job.build_config()
  for key, _ in job.overrides:
    got, want = parsed, built
    for part in key.split("."):
      got, want = got[part], want[part]
    assert tuple(got) == tuple(want) if isinstance(want, (tuple, list)) else got == want, key
