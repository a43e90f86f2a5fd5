"""Make the shipped corpus once: ``python -m learnpe_jax.tasks.textlm.make_corpus``.

Reads the modules of ``TRAIN_MODULES`` and ``HELDOUT_MODULES`` (top-level pure-Python modules of the
standard library, ``<stdlib>/NAME.py``) from the running Python's standard library and writes, in
``learnpe_jax/tasks/textlm/data/``:

  stdlib_corpus.tar.xz   the files, byte for byte (a tar with fixed metadata, xz-compressed)
  provenance.json        the Python version, each module's split, size and sha256, the alphabet,
                         and the snapshot's sha256 and size
  LICENSE-PSF            the licence text of that Python (``<stdlib>/LICENSE.txt``), which the
                         files are distributed under (PSF License Agreement)

The snapshot is what every machine reads (``corpus.py``), so every machine and supported Python has
the same bytes; this script is how it was made. Every file must consist of the bytes of
``ALPHABET`` only (newline and printable ASCII): a file with another byte is refused, so that the
byte-level model's alphabet is exact (no byte mapped to an "other" symbol).

``--check`` rebuilds nothing: it says whether this Python's standard library still holds the
recorded files (sha256 per module), e.g. to know whether a newer Python would make the same
snapshot.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import os
import platform
import shutil
import sys
import sysconfig
import tarfile

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
SNAPSHOT = "stdlib_corpus.tar.xz"
PROVENANCE = "provenance.json"
LICENCE = "LICENSE-PSF"

# Byte values of the corpus: newline (10) and printable ASCII (32–126), 96 symbols.
ALPHABET = (10,) + tuple(range(32, 127))

# Held out whole (no byte of them is trained on): about 10% of the corpus's bytes.
HELDOUT_MODULES = ("colorsys", "difflib", "graphlib", "plistlib", "poplib", "pstats", "selectors",
                   "socketserver", "textwrap", "wave")
TRAIN_MODULES = (
    "argparse", "ast", "base64", "bdb", "calendar", "cmd", "code", "codecs", "configparser",
    "contextlib", "copy", "csv", "dataclasses", "datetime", "dis", "enum", "filecmp", "fileinput",
    "fnmatch", "gettext", "glob", "gzip", "hmac", "imaplib", "inspect", "ipaddress", "linecache",
    "locale", "mailbox", "mimetypes", "netrc", "numbers", "operator", "optparse", "os", "pathlib",
    "pickle", "posixpath", "pprint", "queue", "quopri", "random", "sched", "shutil", "smtplib",
    "socket", "string", "subprocess", "tarfile", "tempfile", "threading", "timeit", "tokenize",
    "trace", "traceback", "typing", "uuid", "warnings", "weakref")


def stdlib_dir() -> str:
  return sysconfig.get_paths()["stdlib"]


def read_modules(stdlib: str, strict: bool = True) -> dict[str, bytes]:
  """{module: its file's bytes}, train modules first, each list in its own order (``strict``: a
  file with a byte outside ``ALPHABET`` is refused; else a missing file is left out)."""
  out = {}
  allowed = set(ALPHABET)
  for name in TRAIN_MODULES + HELDOUT_MODULES:
    path = os.path.join(stdlib, f"{name}.py")
    if not strict and not os.path.exists(path):
      continue
    with open(path, "rb") as f:
      data = f.read()
    bad = sorted(set(data) - allowed)
    if bad and strict:
      raise SystemExit(f"{name}.py holds bytes outside the alphabet ({bad[:5]}): choose another "
                       "module")
    out[name] = data
  return out


def tar_xz(files: dict[str, bytes]) -> bytes:
  """The files as NAME.py in a tar whose metadata is fixed (mtime 0, root, mode 644), so that the
  same files give the same tar; then xz at preset 9e."""
  buf = io.BytesIO()
  with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
    for name, data in files.items():
      info = tarfile.TarInfo(f"{name}.py")
      info.size, info.mtime, info.mode = len(data), 0, 0o644
      info.uid = info.gid = 0
      info.uname = info.gname = ""
      tar.addfile(info, io.BytesIO(data))
  return lzma.compress(buf.getvalue(), format=lzma.FORMAT_XZ, preset=9 | lzma.PRESET_EXTREME)


def sha256(data: bytes) -> str:
  return hashlib.sha256(data).hexdigest()


def provenance(files: dict[str, bytes], snapshot: bytes) -> dict:
  return {
      "description": "Top-level pure-Python modules of the CPython standard library, byte for "
                     "byte, for a byte-level causal language model (learnpe_jax.tasks.textlm).",
      "python": platform.python_version(),
      "implementation": platform.python_implementation(),
      "source": "<stdlib>/NAME.py of that Python (sysconfig.get_paths()['stdlib'])",
      "licence": f"PSF License Agreement; the text of that Python's LICENSE.txt is {LICENCE}",
      "made_by": "python -m learnpe_jax.tasks.textlm.make_corpus",
      "alphabet": list(ALPHABET),
      "modules": [{"name": name, "file": f"{name}.py",
                   "split": "heldout" if name in HELDOUT_MODULES else "train",
                   "bytes": len(data), "sha256": sha256(data)} for name, data in files.items()],
      "snapshot": {"file": SNAPSHOT, "bytes": len(snapshot), "sha256": sha256(snapshot)},
  }


def provenance_text(record: dict) -> str:
  """JSON with one line per field, per module and for the alphabet (readable in a diff)."""
  lines = []
  for key, value in record.items():
    if key == "modules":
      rows = ",\n".join("  " + json.dumps(m) for m in value)
      lines.append(f' "{key}": [\n{rows}\n ]')
    else:
      lines.append(f" {json.dumps(key)}: {json.dumps(value)}")
  return "{\n" + ",\n".join(lines) + "\n}\n"


def main(argv=None) -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--check", action="store_true",
                      help="compare this Python's files with the recorded ones; write nothing")
  parser.add_argument("--out", default=DATA_DIR, help="where to write (default: the package)")
  args = parser.parse_args(argv)
  stdlib = stdlib_dir()
  if args.check:
    with open(os.path.join(DATA_DIR, PROVENANCE)) as f:
      recorded = {m["name"]: m["sha256"] for m in json.load(f)["modules"]}
    files = read_modules(stdlib, strict=False)
    differ = [n for n in recorded if n not in files or sha256(files[n]) != recorded[n]]
    print(f"Python {platform.python_version()} ({stdlib}): {len(recorded) - len(differ)} of "
          f"{len(recorded)} modules as recorded" + (f"; differ: {', '.join(differ)}" if differ
                                                    else ""))
    sys.exit(1 if differ else 0)
  files = read_modules(stdlib)
  snapshot = tar_xz(files)
  os.makedirs(args.out, exist_ok=True)
  with open(os.path.join(args.out, SNAPSHOT), "wb") as f:
    f.write(snapshot)
  with open(os.path.join(args.out, PROVENANCE), "w") as f:
    f.write(provenance_text(provenance(files, snapshot)))
  shutil.copyfile(os.path.join(stdlib, "LICENSE.txt"), os.path.join(args.out, LICENCE))
  total = sum(map(len, files.values()))
  held = sum(len(files[n]) for n in HELDOUT_MODULES)
  print(f"{len(files)} modules, {total:,} bytes ({held / total:.1%} held out) → "
        f"{len(snapshot):,} bytes in {os.path.join(args.out, SNAPSHOT)}")


if __name__ == "__main__":
  main()
