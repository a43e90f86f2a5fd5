"""KV-cache decoding against re-running the full forward: ``python benchmarks/kv_cache_speed.py
[--pes=rope,alibi,learned] [--new_tokens=256] [--out=benchmarks/results/kv_cache_speed.json]``.

For each PE, one process builds ``examples/causal_decoder.py``'s ``Decoder`` (width 64, 2 blocks,
4 heads, vocab 64; ``max_len`` = prompt + new tokens) and greedily generates ``--new_tokens``
tokens after a random prompt of ``--prompt_len`` two ways, as the example's ``generate`` does:
  cache         ``compiled_step``: one compiled decode step per token against the KV cache
  full forward  the jitted full forward over the whole padded ``max_len`` sequence per token
Both functions are compiled once and warmed up before timing (``generate`` itself builds a new
``jax.jit`` at each call, so timing it would count the tracing again). Each way is timed
``--repeats`` times, alternating; the ratio is median(full forward) ÷ median(cache). The cache's
time includes feeding the prompt through it token by token, as ``generate`` does; ms per token are
the whole time ÷ ``--new_tokens``. Both ways
must give the same tokens (``same_tokens``). Writes ``{"commands", "machine", "rows"}`` to
``--out`` as ``benchmarks/k_curve.py`` does, and prints the rows as one JSON line last.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

import results_file  # benchmarks/, beside this script

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location(
    "causal_decoder", os.path.join(REPO, "examples", "causal_decoder.py"))
decoder = sys.modules["causal_decoder"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(decoder)


def greedy(prompt, num_new: int, max_len: int, next_logits) -> jax.Array:
  """``decoder.generate``'s loop with a compiled function already built: ``next_logits(tokens,
  t)`` gives the logits [B, vocab] of position t."""
  batch, p = prompt.shape
  tokens = jnp.zeros((batch, max_len), jnp.int32).at[:, :p].set(prompt)
  for t in range(p - 1, p + num_new - 1):
    tokens = tokens.at[:, t + 1].set(jnp.argmax(next_logits(tokens, t), -1))
  return tokens[:, :p + num_new].block_until_ready()


def cache_way(model, params):
  """Through the KV cache: the prompt fed token by token, then one step per new token (as in
  ``decoder.generate(..., use_cache=True)``)."""
  step = decoder.compiled_step(model, params)

  def run(prompt, num_new):
    batch, p = prompt.shape
    tokens = jnp.zeros((batch, model.max_len), jnp.int32).at[:, :p].set(prompt)
    caches = model.empty_cache(batch)
    for t in range(p + num_new - 1):
      logits, caches = step(caches, tokens[:, t:t + 1], jnp.int32(t))
      if t + 1 >= p:
        tokens = tokens.at[:, t + 1].set(jnp.argmax(logits[:, 0], -1))
    return tokens[:, :p + num_new].block_until_ready()
  return run


def full_way(model, params):
  """The full forward over the padded sequence at each step (``use_cache=False``)."""
  full = jax.jit(lambda toks: model.apply(params, toks))
  return lambda prompt, num_new: greedy(prompt, num_new, model.max_len,
                                        lambda toks, t: full(toks)[:, t])


def bench(pe_name: str, new_tokens: int, prompt_len: int, repeats: int, batch: int) -> dict:
  model = decoder.Decoder(max_len=prompt_len + new_tokens, pe_name=pe_name)
  prompt = jax.random.randint(jax.random.PRNGKey(0), (batch, prompt_len), 0, model.vocab)
  params = model.init(jax.random.PRNGKey(1), prompt)
  ways = {"cache": cache_way(model, params), "full": full_way(model, params)}
  warmup = {}
  for name, run in ways.items():  # compile (and warm) each compiled function once
    start = time.perf_counter()
    run(prompt, 2)
    warmup[name] = time.perf_counter() - start
  times = {name: [] for name in ways}
  outputs = {}
  for _ in range(repeats):
    for name, run in ways.items():
      start = time.perf_counter()
      outputs[name] = run(prompt, new_tokens)
      times[name].append(time.perf_counter() - start)
  cache_sec, full_sec = statistics.median(times["cache"]), statistics.median(times["full"])
  return {
      "pe": pe_name, "new_tokens": new_tokens, "prompt_len": prompt_len, "max_len": model.max_len,
      "batch": batch, "width": model.width, "depth": model.depth, "num_heads": model.num_heads,
      "cache_sec": [round(x, 4) for x in times["cache"]],
      "full_sec": [round(x, 4) for x in times["full"]],
      "cache_ms_per_token": round(1e3 * cache_sec / new_tokens, 3),
      "full_ms_per_token": round(1e3 * full_sec / new_tokens, 3),
      "ratio_full_over_cache": round(full_sec / cache_sec, 2),
      "warmup_sec": {k: round(v, 2) for k, v in warmup.items()},
      "same_tokens": bool(np.array_equal(outputs["cache"], outputs["full"])),
  }


def main(argv=None):
  p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  p.add_argument("--pes", default="rope,alibi,learned", help="comma-separated causal PEs")
  p.add_argument("--new_tokens", type=int, default=256)
  p.add_argument("--prompt_len", type=int, default=32)
  p.add_argument("--repeats", type=int, default=3)
  p.add_argument("--batch", type=int, default=1)
  p.add_argument("--out", default=os.path.join(REPO, "benchmarks", "results",
                                               "kv_cache_speed.json"))
  args = p.parse_args(argv)
  rows = []
  for name in args.pes.split(","):
    r = bench(name, args.new_tokens, args.prompt_len, args.repeats, args.batch)
    rows.append(r)
    print(f"{name:10s} {args.new_tokens} tokens: cache {r['cache_ms_per_token']:.2f} ms/token, "
          f"full forward {r['full_ms_per_token']:.2f} ms/token: ×{r['ratio_full_over_cache']:.1f}"
          f"  same tokens: {r['same_tokens']}", flush=True)
  results_file.write(args.out, "kv_cache_speed.py", argv if argv is not None else sys.argv[1:],
                     rows)
  print(json.dumps(rows))
  return 0


if __name__ == "__main__":
  sys.exit(main())
