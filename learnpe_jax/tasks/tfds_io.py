"""Build a generated tfds dataset once under a data dir and read its splits into numpy.

Every task's builder (LST, network simulation, generated brain data) is prepared as array_record and
read back with ``as_data_source`` (random access, no TensorFlow needed).
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import hashlib
import json
import os

import numpy as np
import tensorflow_datasets as tfds


@contextlib.contextmanager
def _exclusive(data_dir: str):
  """Hold an exclusive lock on ``data_dir`` (one process prepares; the others wait, then reuse).
  Closing the lock file releases it."""
  os.makedirs(data_dir, exist_ok=True)
  with open(os.path.join(data_dir, ".prepare.lock"), "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)
    yield


def prepare(builder_cls, config, data_dir: str, **attrs):
  """The prepared builder for ``config`` (generated on first use, then reused from ``data_dir``);
  ``attrs`` are set on the builder before it prepares (e.g. where its source file lies).

  Processes that start together on a fresh data dir (the benchmark's lanes) take turns: tfds renames
  its finished temporary dir into place and fails if another process got there first.
  """
  tfds.disable_progress_bar()
  known = {c.name for c in builder_cls.BUILDER_CONFIGS}
  with _exclusive(data_dir):
    builder = builder_cls(config=config.name if config.name in known else config,
                          data_dir=data_dir, file_format="array_record")
    for name, value in attrs.items():
      setattr(builder, name, value)
    builder.download_and_prepare(file_format="array_record")
  return builder


def read_split(builder, split: str, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
  """{key: array stacked over the split's examples}."""
  source = builder.as_data_source(split=split)
  items = source.__getitems__(range(len(source)))
  return {k: np.stack([np.asarray(it[k]) for it in items]) for k in keys}


@dataclasses.dataclass
class ParamsConfig(tfds.core.BuilderConfig):
  """A builder config that carries its generator's parameters (as JSON) and is named by them."""
  params_json: str = "{}"

  @property
  def params(self) -> dict:
    return json.loads(self.params_json)


def params_config(params: dict, prefix: str) -> ParamsConfig:
  """``{prefix}_{sha1 of the parameters}``: one dataset per parameter set under the data dir."""
  text = json.dumps(params, sort_keys=True)
  digest = hashlib.sha1(text.encode()).hexdigest()[:12]
  return ParamsConfig(name=f"{prefix}_{digest}", version="1.0.0", params_json=text)


class GeneratedArrays(tfds.core.GeneratorBasedBuilder, skip_registration=True):
  """A seeded generator's output as a dataset: one float32 array ``FEATURE`` per example, splits
  'train' and 'test', side data (true positions, labels, ...) in the metadata. Subclasses give
  ``FEATURE``, ``DESCRIPTION``, ``example_shape(params)`` and ``generate(params)``."""

  VERSION = tfds.core.Version("1.0.0")
  FEATURE = ""
  DESCRIPTION = ""

  def example_shape(self, params: dict) -> tuple[int, ...]:
    raise NotImplementedError

  def generate(self, params: dict) -> tuple[np.ndarray, np.ndarray, dict]:
    """(train examples, test examples, metadata) for ``params``."""
    raise NotImplementedError

  def _info(self) -> tfds.core.DatasetInfo:
    shape = self.example_shape(self.builder_config.params)
    return self.dataset_info_from_configs(
        description=self.DESCRIPTION,
        features=tfds.features.FeaturesDict(
            {self.FEATURE: tfds.features.Tensor(shape=shape, dtype=np.float32)}),
        metadata=tfds.core.MetadataDict(),
        homepage="https://arxiv.org/abs/2406.08272",
    )

  def _split_generators(self, dl_manager):
    train, test, metadata = self.generate(self.builder_config.params)
    for key, value in metadata.items():
      self.info.metadata[key] = np.asarray(value).tolist()
    return {"train": self._generate_examples(train), "test": self._generate_examples(test)}

  def _generate_examples(self, examples):
    for i, example in enumerate(examples):
      yield i, {self.FEATURE: example}


def load_generated(builder_cls, config: ParamsConfig, data_dir: str) -> tuple[dict, dict]:
  """({'train'|'test': float[examples, ...]}, metadata) of a GeneratedArrays dataset."""
  builder = prepare(builder_cls, config, data_dir)
  splits = {s: read_split(builder, s, (builder_cls.FEATURE,))[builder_cls.FEATURE]
            for s in ("train", "test")}
  return splits, builder.info.metadata
