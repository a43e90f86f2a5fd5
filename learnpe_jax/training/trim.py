"""``train.trim_padding``: train a sequence task on its training split cut after the last scored
token of its longest sequence, not on the length of its longest test sequence.

A length task pads every sequence to its longest *test* sequence, so that the model and its PE are
built for that length (``tasks/lengthgen``): training sequences of n ≤ L then carry about as many
padding tokens as real ones (copy at L = 8: inputs of 32 tokens, of which training reads the first
16). Under a causal mask a token never
reads a later one, and the loss counts the scored tokens only, so the trailing padding changes
neither the loss nor its gradient: the cut batch trains the same function, equal up to float
roundoff, in about half the work. The randomized positions of the real tokens are the same draws
(``positions.randomized_positions`` takes a prefix of one permutation per example); the padding
gets fewer of them. What still differs: a PE whose terms read the span of the positions it is given
(``PositionalEncoding.reads_extent``, refused by the config check), and ``model.pe_dropout``, whose
masks are drawn for the cut shape (the same distribution, other draws; also refused, so that the
promise above is exact). Evaluation, init and every measure keep the full length.
"""

from __future__ import annotations

import numpy as np

from learnpe_jax.positions import Positions


def scored_length(split: dict[str, np.ndarray]) -> int:
  """1 + the last position any example of ``split`` scores (``loss_mask`` [S, T] > 0)."""
  scored = np.flatnonzero(np.asarray(split["loss_mask"]).max(axis=0) > 0)
  return int(scored[-1]) + 1 if len(scored) else int(np.shape(split["loss_mask"])[1])


def cut(split: dict[str, np.ndarray], positions: Positions, length: int
        ) -> tuple[dict[str, np.ndarray], Positions]:
  """The per-token arrays of ``split`` (those with a token axis, [S, T, ...]) and the shared
  ``positions`` cut to their first ``length`` tokens; per-example arrays (``level``) unchanged."""
  num_tokens = positions.num_tokens
  out = {k: (v[:, :length] if np.ndim(v) >= 2 and np.shape(v)[1] == num_tokens else v)
         for k, v in split.items()}
  coords = None if positions.coords is None else positions.coords[:length]
  return out, Positions(index=positions.index[:length], coords=coords)
