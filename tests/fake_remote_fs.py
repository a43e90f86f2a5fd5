"""A fake remote filesystem for tests: ``fake://bucket/a/b`` is stored in ``$FAKE_REMOTE_ROOT/bucket/a/b``
and behaves like an object store where it matters here:

  * no rename at all (``rename``/``replace`` raise), so nothing may rely on an atomic rename;
  * no append (``open(..., 'a')`` raises), as on GCS/S3;
  * a write streams straight into the visible object (a reader can see it half-written: it is
    not atomic);
  * ``copy`` publishes the destination whole (as GCS objects.rewrite and S3 CopyObject do).

It is an ``etils.epath`` path class, registered for ``fake://`` on import. Runs in subprocesses load it
through the package's path-plugin hook: ``LEARNPE_JAX_PATH_PLUGINS=tests.fake_remote_fs``
(``learnpe_jax/paths.py``). Every backend call is counted by operation in ``$FAKE_REMOTE_ROOT/.ops/``
(one empty file per call), so a test can say what went through the fake.

TensorStore, which orbax uses to write the arrays of a checkpoint, has its own storage drivers
(file, gcs, s3) and never calls epath; for a ``fake://`` path it is handed the backing local folder
(``as_posix``), so the array chunks land in the same tree; everything orbax does through epath (step
folders, metadata, the commit_success.txt marker, listing, deletion) goes through this backend.
"""

from __future__ import annotations

import os
import shutil
import sys
import uuid

from etils import epath
from etils.epath import backend as backend_lib
from etils.epath import gpath
from etils.epath import register

SCHEME = "fake://"
ROOT_ENV = "FAKE_REMOTE_ROOT"


def root() -> str:
  r = os.environ.get(ROOT_ENV)
  if not r:
    raise OSError(f"fake:// needs ${ROOT_ENV}")
  return r


def local(path) -> str:
  path = os.fspath(path)
  if path.startswith(SCHEME):
    return os.path.join(root(), path[len(SCHEME):])
  return path


def _count(op: str) -> None:
  d = os.path.join(root(), ".ops")
  os.makedirs(d, exist_ok=True)
  open(os.path.join(d, f"{op}.{uuid.uuid4().hex}"), "w").close()


def op_counts() -> dict:
  d = os.path.join(root(), ".ops")
  counts = {}
  for name in os.listdir(d) if os.path.isdir(d) else []:
    op = name.split(".")[0]
    counts[op] = counts.get(op, 0) + 1
  return counts


class NoRename(OSError):
  pass


class _FakeBackend(backend_lib._OsPathBackend):  # pylint: disable=protected-access

  def open(self, path, mode):
    _count("open_" + mode.replace("b", ""))
    if "a" in mode or "+" in mode:
      raise NotImplementedError(f"fake://: no append (mode {mode!r}), as on an object store")
    return open(local(path), mode, encoding=None if "b" in mode else "utf-8", buffering=1 << 12
                if "b" in mode else -1)

  def exists(self, path):
    return os.path.exists(local(path))

  def isdir(self, path):
    return os.path.isdir(local(path))

  def listdir(self, path):
    _count("listdir")
    return super().listdir(local(path))

  def glob(self, path):
    _count("glob")
    base = root()
    return [SCHEME + os.path.relpath(p, base) for p in super().glob(local(path))]

  def walk(self, top, *, top_down=True, on_error=None):
    base = root()
    for r, dirs, files in super().walk(local(top), top_down=top_down, on_error=on_error):
      yield SCHEME + os.path.relpath(os.fspath(r), base), dirs, files

  def makedirs(self, path, *, exist_ok=False, mode=None):
    _count("makedirs")
    super().makedirs(local(path), exist_ok=exist_ok, mode=mode)

  def mkdir(self, path, *, exist_ok=False, mode=None):
    _count("mkdir")
    super().mkdir(local(path), exist_ok=exist_ok, mode=mode)

  def rmtree(self, path):
    _count("rmtree")
    super().rmtree(local(path))

  def remove(self, path):
    _count("remove")
    super().remove(local(path))

  def rename(self, path, dst):
    _count("rename_refused")
    raise NoRename(f"fake:// has no rename ({path} -> {dst})")

  def replace(self, path, dst):
    _count("rename_refused")
    raise NoRename(f"fake:// has no rename ({path} -> {dst})")

  def copy(self, path, dst, overwrite):
    _count("copy")
    dst_local = local(dst)
    if not overwrite and os.path.exists(dst_local):
      raise FileExistsError(dst)
    # The store publishes the copy whole: staged outside the visible tree, then put in place.
    staging = os.path.join(root(), ".staging")
    os.makedirs(staging, exist_ok=True)
    staged = os.path.join(staging, uuid.uuid4().hex)
    shutil.copyfile(local(path), staged)
    os.replace(staged, dst_local)

  def stat(self, path):
    return super().stat(local(path))


BACKEND = _FakeBackend()


def _held_as(parts) -> tuple:
  """``fake://bucket/x`` as ``/fake/bucket/x``; other parts unchanged."""
  full = "/".join(os.fspath(p) for p in parts)
  return ("/fake/" + full[len(SCHEME):],) if full.startswith(SCHEME) else tuple(parts)


@register.register_path_cls(SCHEME)
class FakePath(gpath.PosixGPath):
  """``fake://bucket/x`` held as ``/fake/bucket/x`` (as epath holds ``gs://`` as ``/gs/``)."""

  # pathlib builds paths in __new__ before Python 3.12 and in __init__ from 3.12 on (etils' own
  # GPath splits the same way).
  if sys.version_info < (3, 12):

    def __new__(cls, *parts):
      return super(gpath.PosixGPath, cls).__new__(cls, *_held_as(parts))

  else:

    def __init__(self, *parts):
      super().__init__(*_held_as(parts))

  @property
  def _uri_scheme(self):
    if len(self.parts) >= 2 and self.parts[0] == "/" and self.parts[1] == "fake":
      return "fake"
    return super()._uri_scheme

  @property
  def _backend(self):
    return BACKEND if self._uri_scheme == "fake" else super()._backend

  def as_posix(self) -> str:
    """The backing local path: what TensorStore (orbax's array writer) is handed."""
    return local(self._path_str)


assert isinstance(epath.Path(SCHEME + "b/x"), FakePath)
