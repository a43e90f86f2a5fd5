"""The shipped corpus: the standard-library modules in ``data/stdlib_corpus.tar.xz``, checked
against ``data/provenance.json`` on reading (the snapshot's sha256 and every file's), split by
module into 'train' and 'heldout' as the provenance records.

The bytes are the same on every machine and Python: they come from the snapshot, never from the
running Python's own standard library (whose files differ between 3.11 patch releases, 3.12 and
distributions; ``make_corpus --check`` shows by how much). Licence: the PSF License Agreement, text
in ``data/LICENSE-PSF``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import os
import tarfile

import numpy as np

from learnpe_jax.errors import DataError

DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
SNAPSHOT = os.path.join(DATA_DIR, "stdlib_corpus.tar.xz")
PROVENANCE = os.path.join(DATA_DIR, "provenance.json")
SPLITS = ("train", "heldout")


@dataclasses.dataclass(frozen=True)
class Corpus:
  """The modules' bytes by name (uint8 arrays, in provenance order), each module's split, and the
  alphabet: the byte values the model predicts (symbol i is byte ``alphabet[i]``)."""

  files: dict[str, np.ndarray]
  split: dict[str, str]
  alphabet: tuple[int, ...]
  snapshot_sha256: str

  def modules(self, split: str) -> tuple[str, ...]:
    return tuple(name for name in self.files if self.split[name] == split)

  def symbols(self, data: np.ndarray) -> np.ndarray:
    """Bytes → symbol indices 0..len(alphabet)−1 (every corpus byte is in the alphabet)."""
    table = np.full(256, -1, np.int16)
    table[list(self.alphabet)] = np.arange(len(self.alphabet))
    out = table[data]
    if (out < 0).any():
      raise DataError(f"a byte outside the corpus alphabet: {sorted(set(data[out < 0].tolist()))}")
    return out.astype(np.int32)


def provenance() -> dict:
  with open(PROVENANCE) as f:
    return json.load(f)


def sha256(data: bytes) -> str:
  return hashlib.sha256(data).hexdigest()


@functools.lru_cache(maxsize=1)
def load() -> Corpus:
  """The corpus, after checking the snapshot and every file against the provenance (a mismatch is
  one ``DataError`` line)."""
  record = provenance()
  with open(SNAPSHOT, "rb") as f:
    snapshot = f.read()
  if sha256(snapshot) != record["snapshot"]["sha256"]:
    raise DataError(f"{SNAPSHOT}: sha256 {sha256(snapshot)} is not the provenance's "
                    f"{record['snapshot']['sha256']} (remake it with python -m "
                    "learnpe_jax.tasks.textlm.make_corpus)")
  with tarfile.open(fileobj=io.BytesIO(snapshot), mode="r:xz") as tar:
    members = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
  files, split = {}, {}
  for m in record["modules"]:
    data = members.pop(m["file"], None)
    if data is None or sha256(data) != m["sha256"]:
      raise DataError(f"{SNAPSHOT}: {m['file']} is missing or not the bytes of the provenance")
    files[m["name"]] = np.frombuffer(data, np.uint8)
    split[m["name"]] = m["split"]
  if members:
    raise DataError(f"{SNAPSHOT}: files the provenance does not list: {sorted(members)}")
  return Corpus(files=files, split=split, alphabet=tuple(record["alphabet"]),
                snapshot_sha256=record["snapshot"]["sha256"])
