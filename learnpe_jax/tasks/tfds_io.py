"""Build a generated tfds dataset once under a data dir and read its splits into numpy.

Every task's builder (LST, network simulation, generated brain data) is prepared as array_record and
read back with ``as_data_source`` (random access, no TensorFlow needed).
"""

from __future__ import annotations

import numpy as np
import tensorflow_datasets as tfds


def prepare(builder_cls, config, data_dir: str):
  """The prepared builder for ``config`` (generated on first use, then reused from ``data_dir``)."""
  tfds.disable_progress_bar()
  known = {c.name for c in builder_cls.BUILDER_CONFIGS}
  builder = builder_cls(config=config.name if config.name in known else config,
                        data_dir=data_dir, file_format="array_record")
  builder.download_and_prepare(file_format="array_record")
  return builder


def read_split(builder, split: str, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
  """{key: array stacked over the split's examples}."""
  source = builder.as_data_source(split=split)
  items = source.__getitems__(range(len(source)))
  return {k: np.stack([np.asarray(it[k]) for it in items]) for k in keys}
