"""Write tests/fixtures/rope_scaling_golden.json: RoPE context-extension inverse frequencies and
attention factors computed by an independent implementation, Hugging Face ``transformers``'
``ROPE_INIT_FUNCTIONS`` (``transformers.modeling_rope_utils``), for ``tests/test_rope_scaling.py``
to compare with ``learnpe_jax.pe.rope_scaling`` (that test needs only numpy and this repo).

Run once, in an environment of its own (torch and transformers are not dependencies of the repo):

    python3 -m venv /work/hfvenv
    /work/hfvenv/bin/pip install torch transformers     # a CPU build of torch is enough
    /work/hfvenv/bin/python tools/make_rope_fixture.py          # from the repo root

Each case names our method and fields and how it was computed with ``transformers`` (``hf``):
  none        LlamaRotaryEmbedding.compute_default_rope_parameters (full rotary dim); for a
              partial rotary dim, 'linear' at factor 1 (the same formula over dim = fraction·Dh).
  linear      ROPE_INIT_FUNCTIONS['linear'].
  ntk         ROPE_INIT_FUNCTIONS['dynamic'] at factor 1 and seq_len = s·L₀: its base
              base·(1·L/L₀ − 0)^(d/(d−2)) is then the static NTK-aware base·s^(d/(d−2)).
              transformers has no static NTK entry; this is the same formula with α = s.
  dynamic_ntk ROPE_INIT_FUNCTIONS['dynamic'] (L₀ = max_position_embeddings), at several seq_len.
  yarn        ROPE_INIT_FUNCTIONS['yarn'] (factor, original_max_position_embeddings, beta_fast,
              beta_slow, attention_factor given explicitly or left to the default).
  llama3      ROPE_INIT_FUNCTIONS['llama3'] (Llama 3.1's 8/1/4/8192, Llama 3.2's factor 32, a
              small-model case).
  longrope    ROPE_INIT_FUNCTIONS['longrope'] with seq_len None (short factors) and L₀ + 1 (long).
"""

from __future__ import annotations

import json
import os
import platform

import numpy as np
import torch
import transformers
from transformers import LlamaConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

OUT = os.path.join(os.path.dirname(__file__), os.pardir, "tests", "fixtures",
                   "rope_scaling_golden.json")
NUM_HEADS = 4


def hf_config(head_dim, base, rope_type, max_position_embeddings, fraction=1.0, **params):
  rope = {"rope_type": rope_type, "rope_theta": base, **params}
  if fraction != 1.0:
    rope["partial_rotary_factor"] = fraction
  return LlamaConfig(hidden_size=head_dim * NUM_HEADS, num_attention_heads=NUM_HEADS,
                     num_key_value_heads=NUM_HEADS, head_dim=head_dim,
                     max_position_embeddings=max_position_embeddings, rope_parameters=rope)


def run(rope_type, config, seq_len=None):
  if rope_type == "default":
    inv, att = LlamaRotaryEmbedding.compute_default_rope_parameters(config)
  else:
    inv, att = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len)
  inv = inv.detach().cpu().numpy().astype(np.float64)
  return [float(v) for v in inv], float(att)


def cases():
  """(ours: dict of RopeScaling fields + head_dim, fraction, base, seq_len; hf: how)."""
  out = []

  def add(method, head_dim, base, hf_type, hf_max, hf_params, seq_len=None, fraction=1.0,
          hf_seq_len=None, **ours):
    config = hf_config(head_dim, base, hf_type if hf_type != "default" else "default", hf_max,
                       fraction, **hf_params)
    inv, att = run(hf_type, config, hf_seq_len if hf_seq_len is not None else seq_len)
    out.append({"method": method, "head_dim": head_dim, "fraction": fraction, "base": base,
                "seq_len": seq_len, "ours": ours,
                "hf": {"rope_type": hf_type, "max_position_embeddings": hf_max,
                       "rope_parameters": hf_params,
                       "seq_len": hf_seq_len if hf_seq_len is not None else seq_len},
                "inv_freq": inv, "attention_factor": att})

  # none
  for head_dim, base in ((16, 10000.0), (64, 10000.0), (128, 500000.0)):
    add("none", head_dim, base, "default", 2048, {})
  add("none", 64, 10000.0, "linear", 2048, {"factor": 1.0}, fraction=0.5)
  # linear
  for head_dim, base, factor in ((64, 10000.0, 2.0), (64, 10000.0, 4.0), (128, 500000.0, 8.0)):
    add("linear", head_dim, base, "linear", 2048, {"factor": factor}, factor=factor)
  add("linear", 64, 10000.0, "linear", 2048, {"factor": 4.0}, fraction=0.5, factor=4.0)
  # ntk (static): dynamic at factor 1, seq_len = s·L₀
  for head_dim, base, factor in ((64, 10000.0, 2.0), (64, 10000.0, 8.0), (128, 500000.0, 4.0)):
    add("ntk", head_dim, base, "dynamic", 2048, {"factor": 1.0},
        hf_seq_len=int(factor * 2048), factor=factor)
  # dynamic NTK
  for head_dim, base, factor in ((64, 10000.0, 2.0), (128, 10000.0, 4.0)):
    for seq_len in (None, 1024, 2048, 3000, 6144, 16384):
      add("dynamic_ntk", head_dim, base, "dynamic", 2048, {"factor": factor}, seq_len=seq_len,
          factor=factor, original_max_positions=2048)
  add("dynamic_ntk", 64, 10000.0, "dynamic", 2048, {"factor": 4.0}, seq_len=8192, fraction=0.5,
      factor=4.0, original_max_positions=2048)
  # YaRN
  for head_dim, base, factor, l0 in ((64, 10000.0, 4.0, 2048), (64, 10000.0, 16.0, 4096),
                                     (128, 10000.0, 32.0, 4096), (128, 1000000.0, 4.0, 32768),
                                     (16, 10000.0, 8.0, 256)):
    add("yarn", head_dim, base, "yarn", int(factor * l0),
        {"factor": factor, "original_max_position_embeddings": l0},
        factor=factor, original_max_positions=l0)
  add("yarn", 64, 10000.0, "yarn", 8192,
      {"factor": 4.0, "original_max_position_embeddings": 2048, "beta_fast": 16.0,
       "beta_slow": 2.0}, factor=4.0, original_max_positions=2048, beta_fast=16.0, beta_slow=2.0)
  add("yarn", 64, 10000.0, "yarn", 8192,
      {"factor": 4.0, "original_max_position_embeddings": 2048, "attention_factor": 1.25},
      factor=4.0, original_max_positions=2048, attention_factor=1.25)
  add("yarn", 64, 10000.0, "yarn", 8192,
      {"factor": 4.0, "original_max_position_embeddings": 2048}, fraction=0.5,
      factor=4.0, original_max_positions=2048)
  # Llama 3.1 / 3.2 band-wise scaling
  for head_dim, base, factor, l0, low, high in ((128, 500000.0, 8.0, 8192, 1.0, 4.0),
                                                (128, 500000.0, 32.0, 8192, 1.0, 4.0),
                                                (64, 10000.0, 4.0, 512, 1.0, 4.0),
                                                (64, 10000.0, 8.0, 2048, 2.0, 8.0)):
    add("llama3", head_dim, base, "llama3", int(factor * l0),
        {"factor": factor, "original_max_position_embeddings": l0, "low_freq_factor": low,
         "high_freq_factor": high},
        factor=factor, original_max_positions=l0, low_freq_factor=low, high_freq_factor=high)
  # LongRoPE: deterministic per-pair factors shaped like Phi-3's (short ≈ 1, long rising to ~s)
  for head_dim, base, factor, l0 in ((64, 10000.0, 32.0, 4096), (96, 10000.0, 32.0, 4096),
                                     (64, 10000.0, 8.0, 2048)):
    half = head_dim // 2
    f = np.arange(half) / max(half - 1, 1)
    short = [round(float(v), 6) for v in 1.0 + 0.05 * f]
    long = [round(float(v), 6) for v in 1.0 + (factor - 1.0) * f ** 2]
    params = {"factor": factor, "original_max_position_embeddings": l0, "short_factor": short,
              "long_factor": long}
    for seq_len in (None, l0, l0 + 1, 4 * l0):
      add("longrope", head_dim, base, "longrope", int(factor * l0), params, seq_len=seq_len,
          factor=factor, original_max_positions=l0, short_factors=short, long_factors=long)
  add("longrope", 64, 10000.0, "longrope", 8192,
      {"factor": 4.0, "original_max_position_embeddings": 2048, "attention_factor": 1.1,
       "short_factor": [1.0] * 32, "long_factor": [2.0] * 32}, seq_len=4096,
      factor=4.0, original_max_positions=2048, attention_factor=1.1,
      short_factors=[1.0] * 32, long_factors=[2.0] * 32)
  return out


def main():
  data = {"made_by": "tools/make_rope_fixture.py",
          "transformers": transformers.__version__, "torch": torch.__version__,
          "numpy": np.__version__, "python": platform.python_version(),
          "note": "inv_freq: transformers' float32 inverse frequencies (as float64 JSON numbers); "
                  "attention_factor: the factor transformers multiplies cos and sin by.",
          "cases": cases()}
  path = os.path.normpath(OUT)
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, "w") as f:
    json.dump(data, f, indent=1)
    f.write("\n")
  print(f"wrote {path}: {len(data['cases'])} cases, transformers {transformers.__version__}, "
        f"torch {torch.__version__}")


if __name__ == "__main__":
  main()
