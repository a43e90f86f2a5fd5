"""A byte-level causal language model on the Python standard library's source as a ``TaskData``
(``config.task='textlm'``): trained on windows of context L, scored on held-out modules at k·L
for every evaluation multiple k (``generate`` for the windows, ``corpus`` for the bytes).

Vocabulary: the corpus's 96 byte values (newline and printable ASCII, ``corpus.Corpus.alphabet``;
the snapshot holds no other byte), so the model's cross-entropy is exactly its bits per byte.
Tokens are one-hot vectors over them (float16: 0 and 1 are exact, half the memory of float32; the
encoder casts them to its dtype before its linear embedding); positions are the token indices
0..L−1, also given as 1-D coordinates so that coordinate PEs serve them.

Splits: ``train`` (windows of L + 1 bytes of the train modules), ``test`` (the held-out windows at
1·L, scored at every eval like any task's), and ``length_eval`` = {'{k}xL': the held-out windows at
k·L} for every multiple k, scored once after training at positions 0..k·L−1
(``training/length_eval.py``; the summary's ``perplexity_by_length``, bits per byte and
perplexity). Every scored token counts (``loss_mask`` all ones): the loss is the mean next-byte
cross-entropy in nats. The score 'accuracy' of a sequence task (every byte of a window right) is
0 for text; the losses are what to read.

``config.data``: ``context_length`` (L), ``eval_multiples`` (e.g. (1, 2, 4, 8); each divides the
largest), ``num_train`` (train windows), ``num_eval_segments`` (held-out segments of K·L + 1 bytes,
K the largest multiple), ``seed``, ``data_dir``.
"""

from __future__ import annotations

import os

import numpy as np

from learnpe_jax.errors import ConfigError
from learnpe_jax.positions import Positions
from learnpe_jax.tasks.base import LengthEval, TaskData, generator_params
from learnpe_jax.tasks.textlm import corpus as corpus_lib
from learnpe_jax.tasks.textlm import generate as gen


def validate_data(d) -> None:
  """The data fields, checked before anything is generated."""
  from learnpe_jax.tasks.textlm.tfds_builder import GENERATOR_DEFAULTS
  minimum = {"context_length": 2, "num_train": 1, "num_eval_segments": 1}
  for field, low in minimum.items():
    value = d.get(field, GENERATOR_DEFAULTS[field])
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
      raise ConfigError(f"data.{field}", value, f"an integer ≥ {low}")
  gen.check_multiples(d.get("eval_multiples", GENERATOR_DEFAULTS["eval_multiples"]))


def sequence_positions(num_tokens: int) -> Positions:
  index = np.arange(num_tokens, dtype=np.int32)
  return Positions(index=index, coords=index[:, None].astype(np.float32))


def arrays(windows: dict[str, np.ndarray], corpus) -> dict[str, np.ndarray]:
  """Model arrays of windows of n + 1 bytes: ``tokens`` float16 one-hot [S, n, V] of bytes 0..n−1,
  ``target`` int32 [S, n] the symbols of bytes 1..n, ``loss_mask`` float32 [S, n] (all ones),
  ``level`` int32 [S] (zeros: one level)."""
  symbols = corpus.symbols(windows["bytes"])
  vocab = len(corpus.alphabet)
  return {"tokens": np.eye(vocab, dtype=np.float16)[symbols[:, :-1]],
          "target": symbols[:, 1:].astype(np.int32),
          "loss_mask": np.ones(symbols[:, 1:].shape, np.float32),
          "level": np.zeros(len(symbols), np.int32)}


def length_name(k: int) -> str:
  """The name of the held-out set at k·L in ``length_eval`` and ``perplexity_by_length``."""
  return f"{k}xL"


def load_task(config) -> TaskData:
  from learnpe_jax.tasks.textlm import tfds_builder
  validate_data(config.data)
  params = generator_params(config.data, tfds_builder.GENERATOR_DEFAULTS)
  params["eval_multiples"] = gen.check_multiples(params["eval_multiples"])
  raw = tfds_builder.load(os.path.expanduser(config.data.data_dir), params)
  corpus = corpus_lib.load()
  length = params["context_length"]
  multiples = params["eval_multiples"]
  return TaskData(
      name="textlm", kind="sequence", train=arrays(raw["train"], corpus),
      test=arrays(gen.cut(raw[gen.split_name(multiples[-1])], length), corpus),
      positions=sequence_positions(length), coords_known=True,
      num_outputs=len(corpus.alphabet), level_names=("all",),
      length_eval={length_name(k): LengthEval(arrays(raw[gen.split_name(k)], corpus),
                                              sequence_positions(k * length), unit="byte")
                   for k in multiples})
