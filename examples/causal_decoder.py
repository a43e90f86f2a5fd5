"""A causal decoder with a KV cache, built on the PE catalogue (docs/library.md, "Decoding with a
KV cache").

    python examples/causal_decoder.py [--pe=rope] [--rope_scaling=none|linear|ntk|yarn|...]

A pre-norm decoder of its own (token embedding, ``depth`` blocks of causal self-attention and an
MLP, a tied read-out) that takes any causal PE of the catalogue. ``Decoder.__call__`` is the full
forward over a prompt; ``Decoder.decode_step`` runs one new token against a preallocated cache of
the keys and values of every block (unrotated: the rotation is applied with the keys' positions
each step), with the position of the new token as a traced scalar, so one compiled step serves
every position. ``generate`` greedily extends a prompt with it. The PE's terms are made once per
call for the cache's ``max_len`` positions; ``attend_with_terms(..., query_offset=t)`` cuts the
query rows at t. ``--rope_scaling`` switches RoPE context extension (the rotary PEs only):
``max_len`` is then the extended length and ``original_max_positions`` the trained one.

Run as a script it compares a model's logits from the cache with the full forward and times 256
generated tokens both ways (the full forward recomputed over the whole sequence at each step).
"""

from __future__ import annotations

import argparse
import time

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np

from learnpe_jax import pe as pe_lib
from learnpe_jax.models.attention import attend_with_terms


class Block(nn.Module):
  width: int
  num_heads: int

  @nn.compact
  def __call__(self, x, terms, cache=None, offset=None):
    """x [B, Nq, W]; ``cache`` (k, v) [B, max_len, H, Dh] to write the new keys into at
    ``offset``; returns (x, the cache with them)."""
    head_dim = self.width // self.num_heads
    h = nn.LayerNorm()(x)
    q, k, v = (nn.DenseGeneral((self.num_heads, head_dim), name=n)(h) for n in "qkv")
    if cache is not None:
      k = jax.lax.dynamic_update_slice_in_dim(cache[0], k, offset, axis=1)
      v = jax.lax.dynamic_update_slice_in_dim(cache[1], v, offset, axis=1)
    out = attend_with_terms(q, k, v, terms, causal=True, query_offset=offset)
    x = x + nn.DenseGeneral(self.width, axis=(-2, -1), name="out")(out)
    h = nn.LayerNorm()(x)
    x = x + nn.Dense(self.width)(nn.gelu(nn.Dense(4 * self.width)(h)))
    return x, (k, v)


class Decoder(nn.Module):
  vocab: int = 64
  width: int = 64
  num_heads: int = 4
  depth: int = 2
  max_len: int = 288
  pe_name: str = "rope"
  pe_fields: tuple = ()  # e.g. (("rope_scaling", "yarn"), ("rope_scaling_factor", 4.0), ...)

  def setup(self):
    self.embed = nn.Embed(self.vocab, self.width)
    self.pe = pe_lib.make(self.pe_name, width=self.width, num_heads=self.num_heads,
                          num_tokens=self.max_len, init_scale=0.1, causal=True,
                          **dict(self.pe_fields))
    self.blocks = [Block(self.width, self.num_heads) for _ in range(self.depth)]
    self.norm = nn.LayerNorm()

  def _run(self, tokens, positions, caches=None, offset=None):
    x = self.embed(tokens)
    new_caches = []
    for b, block in enumerate(self.blocks):
      terms = self.pe(positions, b)
      if terms.add is not None:  # the rows of the tokens in x
        rows = terms.add if offset is None else jax.lax.dynamic_slice_in_dim(
            terms.add, offset, tokens.shape[1], axis=terms.add.ndim - 2)
        x = x + rows
      x, cache = block(x, terms, None if caches is None else caches[b], offset)
      new_caches.append(cache)
    return self.embed.attend(self.norm(x)), new_caches

  def __call__(self, tokens):
    """The full forward: logits [B, N, vocab] of tokens [B, N]."""
    return self._run(tokens, pe_lib.sequence_positions(tokens.shape[1]))[0]

  def decode_step(self, token, caches, offset):
    """One token [B, 1] at position ``offset`` (traced): its logits [B, 1, vocab] and the caches
    with its keys and values."""
    return self._run(token, pe_lib.sequence_positions(self.max_len), caches, offset)

  def empty_cache(self, batch: int):
    shape = (batch, self.max_len, self.num_heads, self.width // self.num_heads)
    return [(jnp.zeros(shape), jnp.zeros(shape)) for _ in range(self.depth)]


def compiled_step(model: Decoder, params):
  """``decode_step`` compiled once: (caches, token [B, 1], position) → (logits, caches)."""
  return jax.jit(lambda c, tok, t: model.apply(params, tok, c, t, method=Decoder.decode_step))


def decode_logits(model: Decoder, params, tokens):
  """Logits [B, N, vocab] of ``tokens`` fed one at a time through the cache."""
  step = compiled_step(model, params)
  caches, out = model.empty_cache(tokens.shape[0]), []
  for t in range(tokens.shape[1]):
    logits, caches = step(caches, tokens[:, t:t + 1], jnp.int32(t))
    out.append(logits)
  return jnp.concatenate(out, axis=1)


def generate(model: Decoder, params, prompt, num_new: int, use_cache: bool = True):
  """Greedy continuation of ``prompt`` [B, P] by ``num_new`` tokens, through the cache or by the
  full forward over the whole (padded) sequence at every step."""
  batch, p = prompt.shape
  tokens = jnp.zeros((batch, model.max_len), jnp.int32).at[:, :p].set(prompt)
  if use_cache:
    step = compiled_step(model, params)
    caches = model.empty_cache(batch)
    for t in range(p + num_new - 1):
      logits, caches = step(caches, tokens[:, t:t + 1], jnp.int32(t))
      if t + 1 >= p:
        tokens = tokens.at[:, t + 1].set(jnp.argmax(logits[:, 0], -1))
  else:
    full = jax.jit(lambda toks: model.apply(params, toks))
    for t in range(p - 1, p + num_new - 1):
      logits = full(tokens)  # causal: the padding after t does not reach position t
      tokens = tokens.at[:, t + 1].set(jnp.argmax(logits[:, t], -1))
  return tokens[:, :p + num_new]


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--pe", default="rope")
  parser.add_argument("--rope_scaling", default="none")
  parser.add_argument("--new_tokens", type=int, default=256)
  args = parser.parse_args()
  prompt_len = 32
  max_len = prompt_len + args.new_tokens
  fields = ()
  if args.rope_scaling != "none":
    fields = (("rope_scaling", args.rope_scaling), ("rope_scaling_factor", 4.0),
              ("original_max_positions", max_len // 4))
  model = Decoder(max_len=max_len, pe_name=args.pe, pe_fields=fields)
  prompt = jax.random.randint(jax.random.PRNGKey(0), (1, prompt_len), 0, model.vocab)
  params = model.init(jax.random.PRNGKey(1), prompt)
  full = model.apply(params, prompt)
  cached = decode_logits(model, params, prompt)
  print(f"pe={args.pe} rope_scaling={args.rope_scaling}: max |cached − full| logits over "
        f"{prompt_len} tokens = {float(jnp.abs(cached - full).max()):.2e}")
  times = {}
  for use_cache in (True, False):
    generate(model, params, prompt, 2, use_cache).block_until_ready()  # compile
    t0 = time.perf_counter()
    out = generate(model, params, prompt, args.new_tokens, use_cache).block_until_ready()
    times[use_cache] = time.perf_counter() - t0
    print(f"  {'cache' if use_cache else 'full forward'}: {args.new_tokens} tokens in "
          f"{times[use_cache]:.2f} s")
  same = np.array_equal(generate(model, params, prompt, args.new_tokens, True), out)
  print(f"  the full forward is {times[False] / times[True]:.1f}× slower than the cache; "
        f"same tokens: {same}")


if __name__ == "__main__":
  main()
