"""Length-generalisation problems of Kazemnejad et al., *The Impact of Positional Encoding on
Length Generalization in Transformers* (NeurIPS 2023, arXiv 2305.19466), for a causal decoder.

An example is one token sequence  x SEP y  over the vocabulary PAD, the digits 0–9, SEP, PLUS and
(for the problems that need them) MINUS and 52 variable names; the decoder reads it left to right
and is trained to predict every next token, but only the answer tokens y are scored (``mask``), by
exact match: an example counts as right when every answer token is. (Teacher-forced exact match
equals greedy-decoding exact match: greedy decoding reproduces y exactly when every next-token
prediction given the true prefix is right.)

Problems, with n the length parameter (their Appendix D.1; the words of their prompts, e.g.
"Compute:" or "The answer is", carry no information and are left out):
  copy         x = n random digits,                              y = x
  reverse      x = n random digits,                              y = x reversed
  addition     x = a PLUS b, a and b n-digit numbers written least-significant digit first
               (leading zeros allowed),                          y = a + b in n + 1 digits, least
               significant digit first (the order in which a left-to-right decoder can carry)
  parity       x = n random bits (digits 0 and 1),               y = 1 if the number of 1s is
               odd, else 0 (their "Is the number of 1's even? … No")
  sorting      x = n random digits,                              y = x sorted ascending (their
               single-token variant, the 10 digits as its alphabet)
  summation    x = d₁ PLUS d₂ PLUS … PLUS dₙ, dᵢ uniform in 1..9, y = (Σ dᵢ) mod 10
  polynomial   x = s|v| then n terms s|c|d: the value v uniform in −2..2, each term's coefficient
               c uniform in −3..3 and degree d in 0..3 (s: PLUS or MINUS, the sign),
                                                                 y = (Σ c·vᵈ) mod 10
  lego         x = n clauses  name s operand  of a chain: the first clause's operand is the digit
               1, the i-th's the (i−1)-th name, names distinct and random among 52; the values
               ±1 are drawn uniformly and each sign follows from them (Zhang et al. 2023's LEGO
               with the clauses in chain order, as in Kazemnejad et al.'s example),
                                                                 y = the values (PLUS/MINUS) of
               the variables from the middle of the chain (the ⌊n/2⌋+1-th) to its end, in order

Training draws n uniformly from 1..L; the test set holds ``num_test_per_length`` examples of every
n in 1..2L, and ``level`` = n − 1, so accuracy per level is accuracy against length. Every array
is padded to the longest sequence of the test set (n = 2L): positions beyond the training lengths
are exactly what the test measures.
"""

from __future__ import annotations

import numpy as np

PROBLEMS = ("copy", "reverse", "addition", "parity", "sorting", "summation", "polynomial",
            "lego")
PAD, SEP, PLUS, MINUS = 0, 11, 12, 13
NAMES = 52                      # LEGO's variable names (a–z, A–Z), tokens 14..65
VOCAB_SIZE = 13  # PAD, digits 0–9 as 1–10, SEP, PLUS: the vocabulary of copy, reverse, addition


def vocab_size(problem: str) -> int:
  """The one-hot width of ``problem``'s tokens (13 for the first three problems, as before the
  others existed, so their runs are unchanged)."""
  return {"polynomial": MINUS + 1, "lego": MINUS + 1 + NAMES}.get(problem, VOCAB_SIZE)


def digit_tokens(digits: np.ndarray) -> np.ndarray:
  return np.asarray(digits) + 1


def sign_token(value: int) -> int:
  return MINUS if value < 0 else PLUS


def sequence_length(problem: str, n: int) -> int:
  """Tokens of one example  x SEP y  at length n."""
  return {"copy": 2 * n + 1, "reverse": 2 * n + 1, "addition": 2 * n + 1 + 1 + n + 1,
          "parity": n + 2, "sorting": 2 * n + 1, "summation": 2 * n + 1,
          "polynomial": 2 + 3 * n + 2, "lego": 3 * n + 1 + n - n // 2}[problem]


def answer_values(problem: str, n: int) -> tuple[int, ...]:
  """How many values each answer token of ``problem`` can take at length n, in answer order
  (addition's last digit is a carry, 0 or 1; with one term a sum is never 0 and a polynomial
  never 5 mod 10)."""
  if problem not in PROBLEMS:
    raise ValueError(f"problem must be one of {PROBLEMS}, got {problem!r}")
  return {"copy": (10,) * n, "reverse": (10,) * n, "sorting": (10,) * n,
          "addition": (10,) * n + (2,), "parity": (2,), "summation": (9 if n == 1 else 10,),
          "polynomial": (9 if n == 1 else 10,), "lego": (2,) * (n - n // 2)}[problem]


def chance_exact_match(problem: str, n: int) -> float:
  """Exact match of a guess blind to x, drawn uniformly over each answer token's values:
  Π 1/values (``answer_values``). The floor an exact match at length n is read against: 1/10 for
  summation and polynomial evaluation (n > 1) and 1/2 for parity at every n; 2^−(n − ⌊n/2⌋) for
  LEGO; at most 10^−n for the others. (A guess that knows more of the answer's distribution can do a
  little better, e.g. a constant 0 on polynomial evaluation, whose values favour 0.)"""
  return float(np.prod([1.0 / v for v in answer_values(problem, n)]))


def _problem(problem: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
  """(x, y) tokens of one example."""
  if problem in ("copy", "reverse", "sorting"):
    x = rng.integers(0, 10, n)
    y = {"copy": x, "reverse": x[::-1], "sorting": np.sort(x)}[problem]
    return digit_tokens(x), digit_tokens(y)
  if problem == "addition":
    a, b = rng.integers(0, 10, n), rng.integers(0, 10, n)  # least significant digit first
    total = (sum(int(d) * 10**i for i, d in enumerate(a))
             + sum(int(d) * 10**i for i, d in enumerate(b)))
    y = np.array([(total // 10**i) % 10 for i in range(n + 1)])
    return np.concatenate([digit_tokens(a), [PLUS], digit_tokens(b)]), digit_tokens(y)
  if problem == "parity":
    bits = rng.integers(0, 2, n)
    return digit_tokens(bits), digit_tokens([int(bits.sum()) % 2])
  if problem == "summation":
    d = rng.integers(1, 10, n)
    x = np.full(2 * n - 1, PLUS)
    x[::2] = digit_tokens(d)
    return x, digit_tokens([int(d.sum()) % 10])
  if problem == "polynomial":
    v = int(rng.integers(-2, 3))
    c, deg = rng.integers(-3, 4, n), rng.integers(0, 4, n)
    terms = [[sign_token(ci), abs(int(ci)) + 1, int(di) + 1] for ci, di in zip(c, deg, strict=True)]
    value = sum(int(ci) * v**int(di) for ci, di in zip(c, deg, strict=True)) % 10
    return (np.concatenate([[sign_token(v), abs(v) + 1], np.ravel(terms)]),
            digit_tokens([value]))
  if problem == "lego":
    if n > NAMES:
      raise ValueError(f"lego needs n ≤ {NAMES} (one name per variable), got n = {n}")
    names = MINUS + 1 + rng.permutation(NAMES)[:n]
    values = rng.choice([-1, 1], n)
    signs = values * np.concatenate([[1], values[:-1]])  # v₁ = s₁·1, vᵢ = sᵢ·vᵢ₋₁
    operands = np.concatenate([digit_tokens([1]), names[:-1]])
    clauses = np.stack([names, [sign_token(s) for s in signs], operands], axis=1)
    return clauses.ravel(), np.array([sign_token(v) for v in values[n // 2:]])
  raise ValueError(f"problem must be one of {PROBLEMS}, got {problem!r}")


def example(problem: str, n: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
  """(tokens of  x SEP y, index of the first answer token)."""
  x, y = _problem(problem, n, rng)
  return np.concatenate([x, [SEP], y]).astype(np.int64), len(x) + 1


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
