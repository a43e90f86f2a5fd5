"""Workdir paths through ``etils.epath`` (what flax, orbax and big_vision use): local paths,
``gs://``, ``s3://`` and any scheme a plugin registers, with one rule for writing a whole file so
that a reader never sees it torn.

Paths stay strings in the rest of the package (``join`` keeps a URI a URI; ``normalize`` makes a
local path absolute). ``gs://`` needs ``gcsfs`` (or TensorFlow's ``tf.io.gfile``) at run time,
``s3://`` needs ``s3fs``; epath picks them up.

Writing a whole file (``write_text``/``write_bytes``):
  * a local path: a unique temp file in the same folder, flushed and fsync'd, then ``os.replace``
    onto the name (an atomic rename: a reader sees the old file or the new one);
  * a URI (``gs://``, ``s3://``, …: object stores have no atomic rename, and a rename there is a
    copy and a delete): the content is streamed to a unique temp object ``.NAME.<hex>.tmp`` beside
    the target, which no reader of this package opens (``is_temp``), then copied onto NAME by the
    store (``publish``: fsspec's ``copy``, a server-side GCS rewrite / S3 CopyObject for gcsfs and
    s3fs; ``tf.io.gfile.copy`` when epath uses TensorFlow), then the temp object is deleted. An
    object store makes the new NAME visible only once it is complete, so a reader sees the old
    object or the new one; the temp step keeps a stream that a killed writer cut short, or a
    filesystem that shows writes as they happen, away from NAME. A writer killed while streaming
    leaves the old NAME intact and a temp object behind (``Workdir.prepare`` removes those).
Appending (``append_text``): a local file is appended to and fsync'd; an object store cannot append,
so the whole file is rewritten by the rule above.

Plugins: ``LEARNPE_JAX_PATH_PLUGINS=pkg.mod[,pkg.mod2]`` names modules imported on first use of this
module; each may register another scheme with ``etils.epath.register_path_cls`` (the tests register
a fake remote filesystem this way, ``tests/fake_remote_fs.py``, so that runs in subprocesses see
it).
"""

from __future__ import annotations

import importlib
import os
import uuid

from etils import epath

PLUGINS_ENV = "LEARNPE_JAX_PATH_PLUGINS"
_plugins_loaded = False


def load_plugins() -> None:
  global _plugins_loaded
  if _plugins_loaded:
    return
  _plugins_loaded = True
  for name in filter(None, (s.strip() for s in os.environ.get(PLUGINS_ENV, "").split(","))):
    importlib.import_module(name)


def is_uri(path) -> bool:
  """True for ``scheme://…`` paths (object stores: no atomic rename, no append)."""
  return "://" in os.fspath(path)


def normalize(path) -> str:
  """A URI as given (without a trailing slash); a local path absolute, ``~`` expanded."""
  path = os.fspath(path)
  if is_uri(path):
    return path.rstrip("/")
  return os.path.abspath(os.path.expanduser(path))


def join(base, *names) -> str:
  base = os.fspath(base)
  if is_uri(base):
    return "/".join([base.rstrip("/"), *(n.strip("/") for n in names)])
  return os.path.join(base, *names)


def basename(path) -> str:
  return os.fspath(path).rstrip("/").rsplit("/", 1)[-1]


def dirname(path) -> str:
  path = os.fspath(path).rstrip("/")
  return path.rsplit("/", 1)[0] if is_uri(path) else os.path.dirname(path)


def Path(path) -> epath.Path:  # noqa: N802  (a constructor)
  load_plugins()
  return epath.Path(os.fspath(path))


def exists(path) -> bool:
  return Path(path).exists()


def makedirs(path) -> None:
  Path(path).mkdir(parents=True, exist_ok=True)


def listdir(path) -> list[str]:
  """Names in the folder (temp objects of unfinished writes left out); [] when it is absent."""
  p = Path(path)
  if not p.exists():
    return []
  return sorted(c.name for c in p.iterdir() if not is_temp(c.name))


def read_text(path) -> str:
  return Path(path).read_text()


def read_bytes(path) -> bytes:
  return Path(path).read_bytes()


def temp_name(name: str) -> str:
  return f".{name}.{uuid.uuid4().hex}.tmp"


def is_temp(name: str) -> bool:
  """A temp file or object of a write in progress (or of a writer that was killed)."""
  return name.startswith(".") and name.endswith(".tmp")


def write_bytes(path, data: bytes) -> None:
  """Write ``data`` to ``path`` so that a reader sees the old file or the new one, never half."""
  path = os.fspath(path)
  tmp = join(dirname(path), temp_name(basename(path)))
  if not is_uri(path):
    try:
      with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
      os.replace(tmp, path)
    except BaseException:
      if os.path.exists(tmp):
        os.unlink(tmp)
      raise
    return
  target, staged = Path(path), Path(tmp)
  try:
    with staged.open("wb") as f:
      f.write(data)
    publish(staged, target)
  finally:
    staged.unlink(missing_ok=True)


def publish(staged: epath.Path, target: epath.Path) -> None:
  """Copy a complete temp object onto ``target`` with the store's own copy: fsspec's ``copy`` for
  epath's fsspec backend (gcsfs, s3fs: server-side, no second upload; etils' ``Path.copy`` would
  stream the bytes through this process), ``Path.copy`` otherwise (tf.io.gfile; plugins)."""
  backend = getattr(staged, "_backend", None)
  if type(backend).__name__ == "_FileSystemSpecBackend" and hasattr(backend, "fs"):
    backend.fs(os.fspath(staged)).copy(os.fspath(staged), os.fspath(target))
  else:
    staged.copy(target, overwrite=True)


def write_text(path, text: str) -> None:
  write_bytes(path, text.encode("utf-8"))


def append_text(path, text: str) -> None:
  """Append ``text`` (whole lines): a local append + fsync, or a whole rewrite on an object store."""
  path = os.fspath(path)
  if is_uri(path):
    old = read_text(path) if exists(path) else ""
    write_text(path, old + text)
    return
  with open(path, "a") as f:
    f.write(text)
    f.flush()
    os.fsync(f.fileno())


def move(src, dst) -> None:
  """Move a file or a folder: ``os.replace`` locally; on an object store every file is copied, then
  the source removed (not atomic there: used only to move an old run aside)."""
  if not is_uri(src) and not is_uri(dst):
    os.replace(src, dst)
    return
  s, d = Path(src), Path(dst)
  if not s.is_dir():
    s.copy(d, overwrite=True)
    s.unlink()
    return
  for root, _, files in s.walk():
    rel = os.fspath(root)[len(os.fspath(s)):].strip("/")
    target = d / rel if rel else d
    target.mkdir(parents=True, exist_ok=True)
    for name in files:
      (root / name).copy(target / name, overwrite=True)
  s.rmtree()


def remove_temps(folder) -> None:
  """Remove the temp files/objects that killed writers left in ``folder`` (not recursive)."""
  p = Path(folder)
  if not p.exists():
    return
  for child in p.iterdir():
    if is_temp(child.name) and not child.is_dir():
      child.unlink(missing_ok=True)
