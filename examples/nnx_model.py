"""A Flax NNX transformer with a catalogue PE (docs/library.md, "NNX"):
``python examples/nnx_model.py [--pe=rope] [--steps=150]``.

``Model`` is an ``nnx.Module``: a token embedding, ``depth`` pre-norm blocks of bidirectional
attention and an MLP, a linear read-out. One PE made with ``pe.make_nnx(..., blocks=range(depth))``
serves every block: block b asks it for its terms (``self.pe(positions, b, x)``), which hold the
block's own parameters where the PE has per-block ones (one learned table per block). Its
parameters are ``nnx.Param``s of the model, trained with the rest by ``nnx.Optimizer``.

The toy task: each token's target is the token before it (random tokens; the first token has no
target). Attention without a PE is blind to order, so only a PE lets the model find its left
neighbour; the loss falls from about log(vocab) with one.

After training, the script checks the bridge: the same forward with the terms of the Linen PE
(``pe.make``, same arguments) applied to ``model.pe.linen_params()`` gives the same logits.
Needs jax, flax, numpy and optax (which flax brings).
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from learnpe_jax import pe as pe_lib
from learnpe_jax.models.attention import attend_with_terms


class Block(nnx.Module):
  """Pre-norm attention (the PE's ``add`` at the input, every other term in the attention) and an
  MLP."""

  def __init__(self, width: int, num_heads: int, rngs: nnx.Rngs):
    self.num_heads = num_heads
    self.norm1 = nnx.LayerNorm(width, rngs=rngs)
    self.qkv = nnx.Linear(width, 3 * width, rngs=rngs)
    self.out = nnx.Linear(width, width, rngs=rngs)
    self.norm2 = nnx.LayerNorm(width, rngs=rngs)
    self.mlp_in = nnx.Linear(width, 2 * width, rngs=rngs)
    self.mlp_out = nnx.Linear(2 * width, width, rngs=rngs)

  def __call__(self, x, terms):
    batch, n, width = x.shape
    x = terms.add_to(x)
    heads = self.qkv(self.norm1(x)).reshape(batch, n, 3, self.num_heads, -1)
    out = attend_with_terms(heads[:, :, 0], heads[:, :, 1], heads[:, :, 2], terms)
    x = x + self.out(out.reshape(batch, n, width))
    return x + self.mlp_out(nnx.gelu(self.mlp_in(self.norm2(x))))


class Model(nnx.Module):
  """Embedding, ``depth`` blocks sharing one PE module, read-out. ``terms_of(b, x)`` (default: the
  model's own PE) gives block b's terms: the hook the Linen check uses."""

  def __init__(self, pe_name: str, *, vocab: int = 16, width: int = 32, depth: int = 2,
               num_heads: int = 4, num_tokens: int = 16, seed: int = 0):
    rngs = nnx.Rngs(seed)
    self.pe_name, self.width = pe_name, width
    self.num_heads, self.num_tokens = num_heads, num_tokens
    self.embed = nnx.Embed(vocab, width, rngs=rngs)
    self.pe = pe_lib.make_nnx(pe_name, **self.pe_args(), blocks=range(depth),
                              positions=self.positions(num_tokens),
                              x_BNW=jnp.zeros((1, num_tokens, width)), rngs=rngs)
    self.blocks = nnx.List([Block(width, num_heads, rngs) for _ in range(depth)])
    self.norm = nnx.LayerNorm(width, rngs=rngs)
    self.head = nnx.Linear(width, vocab, rngs=rngs)

  def pe_args(self) -> dict:
    """``make``'s arguments: the same for the NNX PE and its Linen twin."""
    return dict(width=self.width, num_heads=self.num_heads, num_tokens=self.num_tokens,
                init_scale=0.1)

  @staticmethod
  def positions(n: int):
    return pe_lib.grid_positions((n,))  # a 1-D grid: index, coordinates and the grid (for peg)

  def __call__(self, tokens_BN, terms_of=None):
    positions = self.positions(tokens_BN.shape[1])
    if terms_of is None:
      terms_of = lambda b, x: self.pe(positions, b, x)  # noqa: E731
    x = self.embed(tokens_BN)
    for b, block in enumerate(self.blocks):
      x = block(x, terms_of(b, x))
    return self.head(self.norm(x))


def make_batch(rng: np.random.Generator, batch: int, n: int, vocab: int):
  """Random tokens int[B, N]; targets: the token before (weights 0 at the first token)."""
  tokens = rng.integers(vocab, size=(batch, n)).astype(np.int32)
  targets = np.roll(tokens, 1, axis=1)
  weights = np.ones((batch, n), np.float32)
  weights[:, 0] = 0
  return tokens, targets, weights


def loss_fn(model, tokens, targets, weights):
  losses = optax.softmax_cross_entropy_with_integer_labels(model(tokens), targets)
  return (losses * weights).sum() / weights.sum()


@nnx.jit
def train_step(model, optimizer, tokens, targets, weights):
  loss, grads = nnx.value_and_grad(loss_fn)(model, tokens, targets, weights)
  optimizer.update(model, grads)
  return loss


def linen_logits(model: Model, tokens_BN):
  """The model's logits with each block's terms from the Linen PE (``pe.make``) and the NNX PE's
  parameters in the Linen layout (``model.pe.linen_params()``)."""
  linen_pe = pe_lib.make(model.pe_name, **model.pe_args())
  variables = {"params": model.pe.linen_params()}
  positions = model.positions(tokens_BN.shape[1])
  return model(tokens_BN, terms_of=lambda b, x: linen_pe.apply(variables, positions, b, x))


def train(pe_name: str, *, steps: int = 150, batch: int = 32, num_tokens: int = 16,
          learning_rate: float = 3e-3, seed: int = 0, log_every: int = 25):
  """Adam on fresh batches; returns (model, losses per step)."""
  model = Model(pe_name, num_tokens=num_tokens, seed=seed)
  optimizer = nnx.Optimizer(model, optax.adam(learning_rate), wrt=nnx.Param)
  vocab = model.head.out_features
  rng = np.random.default_rng(seed)
  losses = []
  for step in range(steps):
    losses.append(float(train_step(model, optimizer, *make_batch(rng, batch, num_tokens, vocab))))
    if log_every and (step % log_every == 0 or step == steps - 1):
      print(f"  step {step:4d}  loss {losses[-1]:.3f}", flush=True)
  return model, losses


def main(argv=None):
  parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
  parser.add_argument("--pe", default="rope", help="any name of pe.names()")
  parser.add_argument("--steps", type=int, default=150)
  parser.add_argument("--num_tokens", type=int, default=16)
  args = parser.parse_args(argv)
  start = time.time()
  print(f"NNX model, PE {args.pe!r} (pe.make_nnx, one module for every block); target: the token "
        f"before; chance loss log(16) = {np.log(16):.2f}")
  model, losses = train(args.pe, steps=args.steps, num_tokens=args.num_tokens)
  tokens = make_batch(np.random.default_rng(10_000), 64, args.num_tokens, 16)[0]
  logits = model(tokens)
  accuracy = float((logits.argmax(-1) == np.roll(tokens, 1, axis=1))[:, 1:].mean())
  diff = float(jnp.abs(logits - linen_logits(model, tokens)).max())
  print(f"  held-out accuracy {accuracy:.3f}; max |NNX − Linen PE| logits = {diff:.1e}  "
        f"({time.time() - start:.0f} s)")
  return {"losses": losses, "accuracy": accuracy, "linen_max_diff": diff}


if __name__ == "__main__":
  main()
