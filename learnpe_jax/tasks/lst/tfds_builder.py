"""The LST as a tfds dataset: generated once per (generator, size, seed, split) and cached under a
data dir.

Generators: 'reveal' (``generate.generate``, the default; a stratified split), 'pluck'
(puzzles made the companion code's way, ``generate.generate_pluck``; a plain split) and
'companion' (the companion's own 9,000 shipped puzzles and its stratified split,
``companion``; nothing generated, the config ``companion``). A 'pluck' config's name ends in
``_pluck``; 'reveal' names are unchanged, so cached datasets stay valid.

Stored as array_record and read with ``as_data_source`` (no TensorFlow needed).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import tensorflow_datasets as tfds

from learnpe_jax.tasks import tfds_io
from learnpe_jax.tasks.lst import companion
from learnpe_jax.tasks.lst import generate as ls


@dataclasses.dataclass
class LatinSquareConfig(tfds.core.BuilderConfig):
  num_per_level: int = 3000
  seed: int = 0
  test_fraction: float = 0.1
  generator: str = "reveal"


def builder_config(num_per_level: int, seed: int, test_fraction: float,
                   generator: str = "reveal") -> LatinSquareConfig:
  if generator not in ls.GENERATORS:
    raise ValueError(f"generator must be one of {ls.GENERATORS}, got {generator!r}")
  if generator == "companion":  # fixed files and split: the size, seed and fraction are theirs
    return LatinSquareConfig(name="companion", version="1.0.0",
                             num_per_level=companion.NUM_PER_LEVEL, seed=0,
                             test_fraction=companion.TEST_FRACTION, generator=generator)
  name = f"n{num_per_level}_seed{seed}_test{int(round(test_fraction * 1000))}"
  if generator != "reveal":
    name += f"_{generator}"
  return LatinSquareConfig(name=name, version="1.0.0",
                           num_per_level=num_per_level, seed=seed,
                           test_fraction=test_fraction, generator=generator)


class LatinSquare(tfds.core.GeneratorBasedBuilder):
  """4×4 Latin Square Task puzzles with unique answers, labelled binary/ternary/quaternary."""

  VERSION = tfds.core.Version("1.0.0")
  RELEASE_NOTES = {"1.0.0": "Generator and solver of learnpe_jax.tasks.lst.generate."}
  BUILDER_CONFIGS = [builder_config(3000, 0, 0.1), builder_config(3000, 0, 0.1, "pluck"),
                     builder_config(3000, 0, 0.1, "companion")]

  def _info(self) -> tfds.core.DatasetInfo:
    return self.dataset_info_from_configs(
        description=ls.__doc__,
        features=tfds.features.FeaturesDict({
            "grid": tfds.features.Tensor(shape=(ls.NUM_CELLS,), dtype=np.int8),
            "answer": tfds.features.Tensor(shape=(), dtype=np.int8),
            "level": tfds.features.Tensor(shape=(), dtype=np.int8),
        }),
        homepage="https://arxiv.org/abs/2406.08272",
    )

  def _split_generators(self, dl_manager):
    cfg = self.builder_config
    if cfg.generator == "companion":
      data = companion.puzzles()
      train, test = companion.split_indices(data["level"])
      return {"train": self._generate_examples(data, train),
              "test": self._generate_examples(data, test)}
    if cfg.generator == "pluck":
      data = ls.generate_pluck(cfg.num_per_level, seed=cfg.seed)
      is_test = ls.plain_split(len(data["level"]), cfg.test_fraction, seed=cfg.seed)
    else:
      data = ls.generate(cfg.num_per_level, seed=cfg.seed)
      is_test = ls.stratified_split(data["level"], cfg.test_fraction, seed=cfg.seed + 1)
    return {"train": self._generate_examples(data, np.flatnonzero(~is_test)),
            "test": self._generate_examples(data, np.flatnonzero(is_test))}

  def _generate_examples(self, data, indices):
    for i in indices:
      yield int(i), {k: data[k][i] for k in ("grid", "answer", "level")}


def load(data_dir: str, num_per_level: int = 3000, seed: int = 0, test_fraction: float = 0.1,
         generator: str = "reveal") -> dict[str, dict[str, np.ndarray]]:
  """{'train'|'test': {'grid', 'answer', 'level'}} as numpy arrays, building the dataset once."""
  builder = tfds_io.prepare(
      LatinSquare, builder_config(num_per_level, seed, test_fraction, generator), data_dir)
  return {split: tfds_io.read_split(builder, split, ("grid", "answer", "level"))
          for split in ("train", "test")}
