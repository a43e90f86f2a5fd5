"""Workdirs on cloud storage: every file a run writes goes through ``learnpe_jax.paths`` (etils.epath),
on a local path and on ``fake://`` (``tests/fake_remote_fs.py``: an object-store-like filesystem
with no rename, no append and non-atomic streaming writes). A reader never sees a torn file; a run
on the fake trains, is killed, resumes and is analysed with the same results as a local run."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from learnpe_jax import paths
from learnpe_jax.errors import UserError
from learnpe_jax.run.workdir import Workdir, read_metrics, write_json
from tests import fake_remote_fs
from tests.helpers import ROOT, main_command

PLUGIN = {paths.PLUGINS_ENV: "tests.fake_remote_fs"}


@pytest.fixture
def fake_root(tmp_path, monkeypatch):
  root = tmp_path / "fake_store"
  root.mkdir()
  monkeypatch.setenv(fake_remote_fs.ROOT_ENV, str(root))
  return root


def _hammer(target: str, write, versions: int = 30, size: int = 400_000) -> list[str]:
  """Write ``versions`` big JSON files to ``target`` with ``write`` while a thread keeps reading it;
  returns what the reader saw that was not a whole version."""
  torn, done = [], threading.Event()

  def reader():
    while not done.is_set():
      try:
        text = paths.read_text(target)
      except FileNotFoundError:
        continue
      try:
        obj = json.loads(text)
        assert len(obj["pad"]) == size
      except (ValueError, AssertionError, KeyError):
        torn.append(text[-40:])

  t = threading.Thread(target=reader)
  t.start()
  try:
    for v in range(versions):
      write(target, json.dumps({"version": v, "pad": "x" * size}))
  finally:
    done.set()
    t.join()
  return torn


@pytest.mark.parametrize("where", ["local", "fake"])
def test_whole_file_writes_are_never_seen_torn(tmp_path, fake_root, where):
  base = str(tmp_path / "run") if where == "local" else "fake://bucket/run"
  paths.makedirs(base)
  target = paths.join(base, "summary.json")
  assert _hammer(target, paths.write_text) == []
  assert json.loads(paths.read_text(target))["version"] == 29
  assert paths.listdir(base) == ["summary.json"]  # no temp file left behind
  if where == "fake":  # the control: the fake does tear a plain streaming write, and renames nothing
    def plain(path, text):
      with paths.Path(path).open("w") as f:
        for i in range(0, len(text), 4096):
          f.write(text[i:i + 4096])
          f.flush()
    assert _hammer(target, plain, versions=10)
    with pytest.raises(OSError, match="no rename"):
      paths.Path(target).rename(paths.join(base, "moved.json"))
    with pytest.raises(NotImplementedError, match="no append"):
      paths.Path(target).open("a")


def test_a_writer_killed_mid_write_leaves_the_old_file(fake_root, monkeypatch):
  wd = Workdir("fake://bucket/run")
  write_json(wd.file("summary.json"), {"version": 1})

  def crash(self, *a, **k):
    raise KeyboardInterrupt("killed before publishing")
  with monkeypatch.context() as m, pytest.raises(KeyboardInterrupt):
    m.setattr(fake_remote_fs.FakePath, "copy", crash)
    m.setattr(fake_remote_fs.FakePath, "unlink", lambda self, missing_ok=False: None)
    write_json(wd.file("summary.json"), {"version": 2})
  assert json.loads(paths.read_text(wd.file("summary.json"))) == {"version": 1}
  left = os.listdir(fake_root / "bucket" / "run")
  assert len(left) == 2 and any(paths.is_temp(n) for n in left)  # the temp object of the kill
  assert paths.listdir(wd.path) == ["summary.json"]  # which readers never list
  wd.prepare({"a": 1}, resume=True)  # the writer's next start removes it
  assert os.listdir(fake_root / "bucket" / "run") == ["summary.json"]


@pytest.mark.parametrize("where", ["local", "fake"])
def test_workdir_files_on_local_and_fake_paths(tmp_path, fake_root, where):
  path = str(tmp_path / "run") if where == "local" else "fake://bucket/runs/x"
  wd = Workdir(path)
  assert wd.path == (path if where == "fake" else os.path.abspath(path))
  wd.prepare({"a": 1}, resume=True)
  wd.record_config({"a": 1})
  wd.truncate_metrics(-1)
  wd.append_metrics([{"step": 0, "model": 0}, {"step": 0, "model": 1}])
  wd.append_metrics([{"step": 100, "model": 0, "loss": float("nan")}])
  assert read_metrics(path) == [{"step": 0, "model": 0}, {"step": 0, "model": 1},
                                {"step": 100, "model": 0, "loss": None}]
  wd.truncate_metrics(0)
  assert [r["step"] for r in wd.read_metrics()] == [0, 0]
  with pytest.raises(UserError, match="holds a run with a different config"):
    Workdir(path).prepare({"a": 2}, resume=True)
  Workdir(path).prepare({"a": 2}, resume=False)  # moves the old run aside (a copy on the fake)
  names = paths.listdir(path)
  assert len(names) == 1 and names[0].startswith("previous_")
  assert paths.listdir(paths.join(path, names[0])) == ["config.json", "metrics.jsonl"]
  if where == "fake":
    assert "rename_refused" not in fake_remote_fs.op_counts()


def test_non_writer_process_writes_nothing(fake_root):
  wd = Workdir("fake://bucket/other", writer=False)
  wd.prepare({"a": 1}, resume=True)
  wd.record_config({"a": 1})
  wd.truncate_metrics(-1)
  wd.append_metrics([{"step": 0}])
  assert not (fake_root / "bucket").exists()


def test_unwritable_fake_workdir_is_one_line(monkeypatch, tmp_path):
  monkeypatch.delenv(fake_remote_fs.ROOT_ENV, raising=False)
  with pytest.raises(UserError, match="workdir 'fake://b/x' is not writable"):
    Workdir("fake://b/x")


def _env(fake_root):
  return {**os.environ, **PLUGIN, fake_remote_fs.ROOT_ENV: str(fake_root)}


@pytest.mark.slow
@pytest.mark.e2e
def test_run_on_fake_remote_is_killed_resumes_and_analyzes_like_a_local_run(fake_root, data_dir,
                                                                            smoke_cli_run):
  data = f"--config.data.data_dir={data_dir}"
  workdir = "fake://bucket/runs/smoke"
  backing = fake_root / "bucket" / "runs" / "smoke"
  proc = subprocess.Popen(main_command(workdir, data), cwd=ROOT, env=_env(fake_root),
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
  deadline = time.time() + 600
  while not (backing / "checkpoints" / "100" / "commit_success.txt").exists():
    assert time.time() < deadline and proc.poll() is None, "the run ended before its checkpoint"
    time.sleep(0.002)
  proc.send_signal(signal.SIGKILL)
  proc.wait()
  assert not (backing / "summary.json").exists()
  resumed = subprocess.run(main_command(workdir, data), cwd=ROOT, env=_env(fake_root),
                           capture_output=True, text=True, timeout=900)
  assert resumed.returncode == 0, resumed.stderr[-3000:]
  assert "Resumed from checkpoint at step" in resumed.stderr
  for name in ("summary.json", "metrics.jsonl"):  # bit for bit
    assert (backing / name).read_text() == (smoke_cli_run / name).read_text(), name
  analyzed = subprocess.run(
      [sys.executable, "-m", "learnpe_jax.analyze", f"--workdir={workdir}",
       "--num_permutations=20"], cwd=ROOT, env=_env(fake_root), capture_output=True, text=True,
      timeout=900)
  assert analyzed.returncode == 0, analyzed.stderr[-3000:]
  analysis = json.loads((backing / "analysis.json").read_text())
  summary = json.loads((backing / "summary.json").read_text())
  for a, s in zip(analysis["models"], summary["models"], strict=True):
    assert a["test_accuracy"] == s["test_accuracy"] and a["pe_rsa"] == s["pe_rsa"]
  assert analysis["workdir"] == workdir
  assert {"report.md", "report.html", "figures"} <= set(os.listdir(backing))
  ops = fake_remote_fs.op_counts()
  assert "rename_refused" not in ops and ops["copy"] > 0  # nothing renamed, every file published


def test_workdir_files_through_epaths_own_gs_route(monkeypatch):
  """``gs://`` as epath routes it (its fsspec backend, TensorFlow absent), with an in-memory
  fsspec filesystem standing in for gcsfs: the workdir's files, and the publish step is the
  filesystem's own copy."""
  import importlib
  from fsspec.implementations.memory import MemoryFileSystem
  from etils.epath import gpath

  class InMemoryGCS(MemoryFileSystem):
    protocol = ("gs", "gcs")
    store, pseudo_dirs, copies = {}, [""], []

    def cp_file(self, path1, path2, **kwargs):
      self.copies.append((path1, path2))
      return super().cp_file(path1, path2, **kwargs)

  registry = importlib.import_module("fsspec.registry")._registry  # what gcsfs registers into
  for name in ("gs", "gcs"):
    monkeypatch.setitem(registry, name, InMemoryGCS)
  monkeypatch.setattr(gpath, "_is_tf_installed", lambda: False)
  from etils.epath import backend
  backend.fsspec_backend._get_filesystem.cache_clear()
  try:
    wd = Workdir("gs://bucket/runs/x")
    assert type(paths.Path(wd.path)._backend).__name__ == "_FileSystemSpecBackend"
    wd.prepare({"a": 1}, resume=True)
    wd.record_config({"a": 1})
    wd.append_metrics([{"step": 0, "model": 0}])
    wd.append_metrics([{"step": 100, "model": 0}])
    write_json(wd.file("summary.json"), {"models": []})
    assert read_metrics("gs://bucket/runs/x") == [{"step": 0, "model": 0}, {"step": 100, "model": 0}]
    assert json.loads(paths.read_text("gs://bucket/runs/x/config.json")) == {"a": 1}
    assert [d for _, d in InMemoryGCS.copies] == [
        "gs://bucket/runs/x/config.json", "gs://bucket/runs/x/metrics.jsonl",
        "gs://bucket/runs/x/metrics.jsonl", "gs://bucket/runs/x/summary.json"]
    assert sorted(k.rsplit("/", 1)[1] for k in InMemoryGCS.store) == [
        "config.json", "metrics.jsonl", "summary.json"]  # no temp object left
  finally:
    backend.fsspec_backend._get_filesystem.cache_clear()
