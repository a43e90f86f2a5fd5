"""Length-generalisation problems of Kazemnejad et al., *The Impact of Positional Encoding on
Length Generalization in Transformers* (NeurIPS 2023, arXiv 2305.19466), for a causal decoder.

An example is one token sequence  x SEP y  over the vocabulary PAD, the digits 0–9, SEP and PLUS;
the decoder reads it left to right and is trained to predict every next token, but only the
answer tokens y are scored (``mask``), by exact match: an example counts as right when every
answer token is. (Teacher-forced exact match equals greedy-decoding exact match: greedy decoding
reproduces y exactly when every next-token prediction given the true prefix is right.)

Problems, with n the length parameter:
  copy       x = n random digits,                              y = x
  reverse    x = n random digits,                              y = x reversed
  addition   x = a PLUS b, a and b n-digit numbers written least-significant digit first (leading
             zeros allowed),                                     y = a + b in n + 1 digits, least
             significant digit first (the order in which a left-to-right decoder can carry)

Training draws n uniformly from 1..L; the test set holds ``num_test_per_length`` examples of every
n in 1..2L, and ``level`` = n − 1, so accuracy per level is accuracy against length. Every array
is padded to the longest sequence of the test set (n = 2L): positions beyond the training lengths
are exactly what the test measures.
"""

from __future__ import annotations

import numpy as np

PROBLEMS = ("copy", "reverse", "addition")
PAD, SEP, PLUS = 0, 11, 12
VOCAB_SIZE = 13  # PAD, digits 0–9 as 1–10, SEP, PLUS


def digit_tokens(digits: np.ndarray) -> np.ndarray:
  return digits + 1


def sequence_length(problem: str, n: int) -> int:
  """Tokens of one example  x SEP y  at length n."""
  return {"copy": 2 * n + 1, "reverse": 2 * n + 1, "addition": 2 * n + 1 + 1 + n + 1}[problem]


def example(problem: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
  """(tokens of  x SEP y, index of the first answer token)."""
  if problem in ("copy", "reverse"):
    x = rng.integers(0, 10, n)
    y = x if problem == "copy" else x[::-1]
    tokens = np.concatenate([digit_tokens(x), [SEP], digit_tokens(y)])
    return tokens, n + 1
  a, b = rng.integers(0, 10, n), rng.integers(0, 10, n)  # least significant digit first
  total = sum(int(d) * 10**i for i, d in enumerate(a)) + sum(int(d) * 10**i for i, d in enumerate(b))
  y = np.array([(total // 10**i) % 10 for i in range(n + 1)])
  tokens = np.concatenate([digit_tokens(a), [PLUS], digit_tokens(b), [SEP], digit_tokens(y)])
  return tokens, 2 * n + 2


def make_split(problem: str, lengths: np.ndarray, num_tokens: int,
               rng: np.random.Generator) -> dict[str, np.ndarray]:
  """Decoder arrays of one example per entry of ``lengths``: ``inputs`` int8[S, T] (the sequence
  without its last token, PAD after it), ``target`` int8[S, T] (the next token at each position),
  ``mask`` int8[S, T] (1 where the target is an answer token), ``level`` int8[S] = n − 1; T =
  ``num_tokens``."""
  count = len(lengths)
  inputs = np.full((count, num_tokens), PAD, np.int8)
  target = np.full((count, num_tokens), PAD, np.int8)
  mask = np.zeros((count, num_tokens), np.int8)
  for i, n in enumerate(lengths):
    tokens, answer_start = example(problem, int(n), rng)
    inputs[i, :len(tokens) - 1] = tokens[:-1]
    target[i, :len(tokens) - 1] = tokens[1:]
    mask[i, answer_start - 1:len(tokens) - 1] = 1
  return {"inputs": inputs, "target": target, "mask": mask,
          "level": (np.asarray(lengths) - 1).astype(np.int8)}


def generate(problem: str, max_train_length: int, num_train: int, num_test_per_length: int,
             seed: int) -> dict[str, dict[str, np.ndarray]]:
  """{'train', 'test'} of the module docstring, padded to the length-2L sequence."""
  if problem not in PROBLEMS:
    raise ValueError(f"problem must be one of {PROBLEMS}, got {problem!r}")
  rng = np.random.default_rng(seed)
  num_tokens = sequence_length(problem, 2 * max_train_length) - 1
  train_lengths = rng.integers(1, max_train_length + 1, num_train)
  test_lengths = np.repeat(np.arange(1, 2 * max_train_length + 1), num_test_per_length)
  return {"train": make_split(problem, train_lengths, num_tokens, rng),
          "test": make_split(problem, test_lengths, num_tokens, rng)}
