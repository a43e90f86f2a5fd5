"""Every bad input of tests/bad_inputs.py exits non-zero with one line and damages nothing."""

import hashlib
import os
import shutil

import pytest

from tests import bad_inputs

pytestmark = pytest.mark.e2e  # each case runs the CLI in a subprocess


@pytest.fixture(scope="module")
def env(tmp_path_factory, data_dir, smoke_run):
  """A copy of the session's smoke run (the config ``bad_inputs.make_smoke_run`` trains), so that
  a case that damaged it would not damage the run the other tests read."""
  run = str(tmp_path_factory.mktemp("smoke") / "run")
  shutil.copytree(smoke_run, run)
  return bad_inputs.Env(data_dir=data_dir, run=run)


def _digest(folder):
  out = {}
  for root, _, files in os.walk(folder):
    for f in files:
      path = os.path.join(root, f)
      with open(path, "rb") as fh:
        out[os.path.relpath(path, folder)] = hashlib.sha256(fh.read()).hexdigest()
  return out


@pytest.mark.parametrize("case", bad_inputs.CASES, ids=[c.name for c in bad_inputs.CASES])
def test_bad_input_gets_one_line_and_damages_nothing(case, tmp_path, env):
  before = _digest(env.run)
  argv, result = bad_inputs.run_case(case, str(tmp_path), env)
  assert result.returncode != 0, (argv, result.stdout[-1000:])
  # Progress lines (absl INFO, "I...") may precede it; nothing else may.
  lines = [l for l in result.stderr.strip().splitlines() if not l.startswith("I")]
  assert len(lines) == 1, result.stderr[-3000:]
  assert lines[0].startswith("error: ") and result.stderr.strip().endswith(lines[0]), lines[0]
  assert "Traceback" not in result.stderr
  assert _digest(env.run) == before
  if case.needs_run and os.path.exists(tmp_path / "run"):  # the copied run is untouched too
    copy = _digest(tmp_path / "run")
    assert {k: v for k, v in copy.items() if not k.startswith("checkpoints")} == {
        k: v for k, v in before.items() if not k.startswith("checkpoints")}
