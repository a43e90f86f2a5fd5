"""A small ViT-style Flax model of one's own, with catalogue PEs through the library API
(docs/library.md): ``python examples/vit_toy.py [--steps=300]``.

The toy task: a 4×4 grid of patches, all blank but two, marked A and B, in different rows and
columns. The class is where B lies from A: up-left, up-right, down-left or down-right (chance 25%).
The patches' contents say nothing about where they are and the model pools by averaging, so without
a PE it cannot beat chance (``none``, the control); with one it must read the two patches' relative
position on both axes. Three PEs of three mechanisms, each from ``learnpe_jax.pe.make``:
  learned           an additive learned table (``terms.add``, added to the block input)
  rope_axial        axial 2-D RoPE (``terms.rotate``, on queries and keys)
  rel_bias_clipped  a 2-D relative bias, a learned table per axis (``terms.logit_bias``)
The attention applies the terms with ``learnpe_jax.models.attention.attend_with_terms``, the code
the project's own encoder runs. Needs jax, flax, numpy and optax (which flax brings).
"""

from __future__ import annotations

import argparse
import time

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax

from learnpe_jax import pe as pe_lib
from learnpe_jax.models.attention import attend_with_terms

GRID = (4, 4)
NUM_TOKENS = GRID[0] * GRID[1]
NUM_CLASSES = 4
PES = ("none", "learned", "rope_axial", "rel_bias_clipped")
CLASS_NAMES = ("up-left", "up-right", "down-left", "down-right")


def make_batch(rng: np.random.Generator, batch: int):
  """patches float[B, N, 3] (one-hot: blank, A, B) and labels int[B] = 2·(B below A) + (B right of
  A), A and B in different rows and different columns."""
  rows, cols = GRID
  ra, rb = rng.integers(rows, size=batch), rng.integers(rows - 1, size=batch)
  ca, cb = rng.integers(cols, size=batch), rng.integers(cols - 1, size=batch)
  rb, cb = rb + (rb >= ra), cb + (cb >= ca)  # a different row and column from A's
  kind = np.zeros((batch, NUM_TOKENS), np.int64)
  kind[np.arange(batch), ra * cols + ca] = 1
  kind[np.arange(batch), rb * cols + cb] = 2
  labels = 2 * (rb > ra) + (cb > ca)
  return np.eye(3, dtype=np.float32)[kind], labels.astype(np.int32)


class ToyViT(nn.Module):
  """Pre-norm blocks of multi-head attention and an MLP, mean pooling, a linear head. The PE is
  any catalogue name; one PE per block (``block_index`` picks the block's own parameters)."""

  pe_name: str
  width: int = 32
  depth: int = 2
  num_heads: int = 4
  init_scale: float = 0.1

  @nn.compact
  def __call__(self, patches_BNF, positions):
    pe = pe_lib.make(self.pe_name, width=self.width, num_heads=self.num_heads,
                     num_tokens=NUM_TOKENS, init_scale=self.init_scale)
    head_dim = self.width // self.num_heads
    x = nn.Dense(self.width)(patches_BNF)
    for b in range(self.depth):
      terms = pe(positions, b)
      x = terms.add_to(x)                 # absolute PEs: a vector per token at the block input
      h = nn.LayerNorm()(x)
      q, k, v = (nn.DenseGeneral((self.num_heads, head_dim))(h) for _ in range(3))
      out = attend_with_terms(q, k, v, terms)  # rotate, biases, relative terms: all the rest
      x = x + nn.DenseGeneral(self.width, axis=(-2, -1))(out)
      h = nn.LayerNorm()(x)
      x = x + nn.Dense(self.width)(nn.gelu(nn.Dense(2 * self.width)(h)))
    return nn.Dense(NUM_CLASSES)(nn.LayerNorm()(x).mean(axis=1))


def train(pe_name: str, steps: int = 300, batch: int = 128, learning_rate: float = 3e-3,
          seed: int = 0, num_test: int = 1024):
  """Train ``ToyViT(pe_name)`` for ``steps`` steps of fresh batches; returns (model, params,
  positions, test accuracy)."""
  positions = pe_lib.grid_positions(GRID)
  model = ToyViT(pe_name)
  rng = np.random.default_rng(seed)
  params = model.init(jax.random.PRNGKey(seed), make_batch(rng, 2)[0], positions)["params"]
  optimizer = optax.adam(learning_rate)
  opt_state = optimizer.init(params)

  def loss_fn(params, patches, labels):
    logits = model.apply({"params": params}, patches, positions)
    return optax.softmax_cross_entropy_with_integer_labels(logits, labels).mean()

  @jax.jit
  def step(params, opt_state, patches, labels):
    grads = jax.grad(loss_fn)(params, patches, labels)
    updates, opt_state = optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state

  for _ in range(steps):
    params, opt_state = step(params, opt_state, *make_batch(rng, batch))
  test_patches, test_labels = make_batch(np.random.default_rng(10_000 + seed), num_test)
  logits = jax.jit(model.apply)({"params": params}, test_patches, positions)
  accuracy = float(np.mean(np.argmax(logits, -1) == test_labels))
  return model, params, positions, accuracy


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--steps", type=int, default=300)
  args = parser.parse_args(argv)
  print(f"toy 2-D task: where is B from A on a {GRID[0]}×{GRID[1]} grid ({NUM_CLASSES} classes, "
        f"chance {1 / NUM_CLASSES:.2f}); {args.steps} steps each")
  results = {}
  for name in PES:
    start = time.time()
    results[name] = train(name, steps=args.steps)[-1]
    print(f"  {name:17s} test accuracy {results[name]:.3f}  ({time.time() - start:.0f} s)")
  return results


if __name__ == "__main__":
  main()
