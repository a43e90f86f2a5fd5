"""Windows of the corpus (``corpus.py``) for a byte-level causal language model trained on context
L and scored on the held-out modules at k·L for every evaluation multiple k (Press et al., *Train
Short, Test Long*, ICLR 2022: non-overlapping evaluation, every byte of a window scored).

A window of n + 1 consecutive bytes of one module gives n inputs (its bytes 0..n−1) and n targets
(its bytes 1..n): the model predicts every next byte. No window crosses a module boundary.

  train     ``num_train`` windows of L + 1 bytes at seeded random offsets of the train modules
            (a module drawn with probability proportional to its number of offsets; windows may
            overlap one another, never a held-out module).
  heldout   ``num_eval_segments`` segments of K·L + 1 bytes (K the largest multiple), drawn without
            replacement among the non-overlapping segments that tile each held-out module from
            its first byte. Length k·L cuts every segment into K/k consecutive windows of k·L + 1
            bytes (window j: bytes j·k·L … (j+1)·k·L): at every k the same K·L bytes of every
            segment are predicted, once each; only the context the model has for them changes.

Every window records its ``module`` (index in the corpus's module order) and its ``start`` (offset
of its first byte in that module's file), so that its bytes can be checked against the corpus.
"""

from __future__ import annotations

import numpy as np

from learnpe_jax.errors import ConfigError
from learnpe_jax.tasks.textlm.corpus import Corpus


def check_multiples(multiples) -> tuple[int, ...]:
  """The evaluation multiples as a tuple: distinct positive integers, ascending, each dividing the
  largest (so that every length cuts the same segments)."""
  values = tuple(multiples)
  ok = (len(values) > 0 and all(isinstance(k, int) and not isinstance(k, bool) and k >= 1
                                for k in values)
        and list(values) == sorted(set(values)) and all(values[-1] % k == 0 for k in values))
  if not ok:
    raise ConfigError("data.eval_multiples", list(values), "distinct positive integers, "
                      "ascending, each dividing the largest, e.g. [1, 2, 4, 8]")
  return values


def train_windows(corpus: Corpus, length: int, num: int, rng: np.random.Generator) -> dict:
  """{'bytes' uint8 [num, length + 1], 'module' int32 [num], 'start' int64 [num]}."""
  names = list(corpus.files)
  train = [i for i, n in enumerate(names) if corpus.split[n] == "train"]
  offsets = np.array([max(len(corpus.files[names[i]]) - length, 0) for i in train], np.int64)
  module = np.asarray(train)[rng.choice(len(train), size=num, p=offsets / offsets.sum())]
  start = np.floor(rng.random(num) * offsets[np.searchsorted(train, module)]).astype(np.int64)
  data = np.stack([corpus.files[names[m]][s:s + length + 1] for m, s in zip(module, start)])
  return {"bytes": data, "module": module.astype(np.int32), "start": start}


def heldout_segments(corpus: Corpus, length: int, num: int, rng: np.random.Generator) -> dict:
  """{'bytes' uint8 [num, length + 1], 'module', 'start'}: ``num`` of the non-overlapping
  segments of ``length`` + 1 bytes that tile the held-out modules, in corpus order."""
  names = list(corpus.files)
  candidates = [(i, s) for i, n in enumerate(names) if corpus.split[n] == "heldout"
                for s in range(0, len(corpus.files[n]) - length, length + 1)]
  if num > len(candidates):
    raise ConfigError("data.num_eval_segments", num, f"at most {len(candidates)} (the held-out "
                      f"modules hold that many segments of {length + 1} bytes)")
  chosen = sorted(rng.choice(len(candidates), size=num, replace=False))
  module = np.array([candidates[c][0] for c in chosen], np.int32)
  start = np.array([candidates[c][1] for c in chosen], np.int64)
  data = np.stack([corpus.files[names[m]][s:s + length + 1] for m, s in zip(module, start)])
  return {"bytes": data, "module": module, "start": start}


def cut(segments: dict, window: int) -> dict:
  """Every segment (K·L + 1 bytes) cut into consecutive windows of ``window`` + 1 bytes that share
  their edge bytes (``window`` divides K·L); segment by segment, in order."""
  total = segments["bytes"].shape[1] - 1
  per = total // window
  j = np.arange(per)
  index = j[:, None] * window + np.arange(window + 1)[None, :]       # [per, window + 1]
  return {"bytes": segments["bytes"][:, index].reshape(-1, window + 1),
          "module": np.repeat(segments["module"], per),
          "start": (segments["start"][:, None] + j[None, :] * window).reshape(-1)}


def generate(corpus: Corpus, context_length: int, eval_multiples, num_train: int,
             num_eval_segments: int, seed: int) -> dict[str, dict]:
  """{'train': windows of L + 1 bytes, 'heldout_x{k}': windows of k·L + 1 bytes per multiple}."""
  multiples = check_multiples(eval_multiples)
  rng = np.random.default_rng(seed)
  out = {"train": train_windows(corpus, context_length, num_train, rng)}
  segments = heldout_segments(corpus, multiples[-1] * context_length, num_eval_segments, rng)
  for k in multiples:
    out[split_name(k)] = cut(segments, k * context_length)
  return out


def split_name(k: int) -> str:
  return f"heldout_x{k}"
