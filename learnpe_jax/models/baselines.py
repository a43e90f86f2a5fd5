"""Non-transformer baselines with an additive PE: a recurrent network (LSTM or GRU) and an MLP
(``config.model.kind`` = 'lstm', 'gru', 'mlp'; 'transformer' is ``encoder.Encoder``).

The study's companion code trains, beside its transformer, an LSTM (``lstnn/lstm_main.py`` of
ljhearne/LSTNN_public) and a feed-forward network (``lstnn/ffn_main.py``) on the Latin Square Task.
Both models here take the tokens as the transformer does, so that the PE is the one variable:

    e_n = Linear_{F→W}(tokens_n) + p_n,   p = the PE's ``add`` vectors (``build_pe``; σ-scaled init)

  * RNN ('lstm': Hochreiter & Schmidhuber 1997, ``nn.OptimizedLSTMCell``; 'gru': Cho et al. 2014,
    ``nn.GRUCell``): ``depth`` stacked layers of W units read e_1 … e_N in token order
    (``bidirectional``: each layer is a forward and a backward RNN, outputs concatenated, 2W);
    readout from the last step h_N (or 'mean' / 'query' / per step 'tokens') → Linear → outputs.
    As the companion's LSTM: uni-directional by default, ``depth`` layers (its 4 layers × 160
    units with ``:paper``), readout at the last step, a linear head. Unlike it: the cells use
    Flax's init (kernel LeCun normal, recurrent orthogonal, bias 0; PyTorch draws all uniformly
    in ±1/sqrt(W)), and the tokens pass the embedding and the PE first (with PE 'none' the
    embedding is linear and folds into the first layer's input kernel, so the function class is
    the companion's LSTM on the raw 5 features).
  * MLP: flatten(e) ∈ R^{N·W} → ``depth`` × [Dense(W·mlp_ratio) → GELU] → Dense(outputs)
    (readout 'tokens': Dense(N·outputs) reshaped per token). The companion's FFN is the raw
    80 features → 3 × [Linear(160) → ReLU] → Linear(4); ``depth=3, width=40, mlp_ratio=4`` gives its
    widths (with GELU and the embedding). Note that an MLP on the flattened tokens is not
    permutation-equivariant and needs no PE; an additive PE there is only a constant shift of the
    first layer's pre-activation (Dense(flatten(e)) = Dense(flatten(Linear(tokens))) + const), so σ
    acts through that shift's init alone.

Only PEs that add a vector per token (catalogue mechanism 'add', or 'none') fit these models; the PE
is asked once, as block 0 (``pe_blocks() == [0]``), and its vectors are what ``pe_add_terms``
returns, as for the transformer (``Trainer.pe_vectors``, the PE metrics). σ stays a per-model traced
array: the PE module is built by ``build_pe`` exactly as for the transformer.
"""

from __future__ import annotations

import flax.linen as nn
import jax
import jax.numpy as jnp

from learnpe_jax.errors import ConfigError
from learnpe_jax.models.encoder import pool
from learnpe_jax.pe.base import PositionalEncoding
from learnpe_jax.positions import Positions

MODEL_KINDS = ("transformer", "lstm", "gru", "mlp")
RNN_CELLS = {"lstm": nn.OptimizedLSTMCell, "gru": nn.GRUCell}
ADDITIVE_MECHANISMS = ("add", "none")
MLP_READOUTS = ("last", "tokens")


def additive_pe_names() -> list[str]:
  """The catalogue's PEs that add a vector per token (those the baselines take)."""
  from learnpe_jax.pe.registry import REGISTRY  # pylint: disable=g-import-not-at-top
  return sorted(n for n, s in REGISTRY.items() if s.mechanism in ADDITIVE_MECHANISMS)


def check_baseline(kind: str, pe_name: str, mechanism: str, readout: str) -> None:
  """One-line ConfigError when PE ``pe_name`` (of ``mechanism``) or ``readout`` cannot serve a
  baseline of ``kind`` ('transformer' takes every PE and readout)."""
  if kind == "transformer":
    return
  if mechanism not in ADDITIVE_MECHANISMS:
    raise ConfigError("model.pe.name", pe_name,
                      f"a PE that adds a vector per token for model.kind={kind!r} (mechanism "
                      f"'add' or 'none'): one of {', '.join(additive_pe_names())}")
  if kind == "mlp" and readout not in MLP_READOUTS:
    raise ConfigError("model.readout", readout,
                      f"one of {', '.join(MLP_READOUTS)} for model.kind='mlp' (one answer from "
                      "the flattened tokens, or one per token)")


class _Baseline(nn.Module):
  """What the baselines share with ``Encoder``: the PE field, ``pe_blocks``, ``pe_add_terms`` (and
  ``pe_logit_terms``, always None), the call signature and ``block_noise_sd`` (``evaluate.py``'s
  noise probe: here Gaussian noise at the input of every layer)."""

  pe: PositionalEncoding
  width: int = 160
  depth: int = 4
  num_outputs: int = 4
  readout: str = "last"
  dtype: jnp.dtype = jnp.float32
  block_noise_sd: float = 0.0

  kind = "?"

  def pe_blocks(self) -> list[int]:
    return [0]

  def pe_add_terms(self, positions: Positions):
    """float[1, N, W]: the vectors the PE adds to the token embeddings (None for PE 'none')."""
    add = self.pe(positions, 0).add
    return None if add is None else add[None]

  def pe_logit_terms(self, positions: Positions):
    """None: a baseline has no attention, so no PE adds logits (the ``Encoder`` method's twin)."""
    del positions
    return None

  def _noise(self, x):
    if self.block_noise_sd <= 0:
      return x
    return x + self.block_noise_sd * jax.random.normal(self.make_rng("noise"), x.shape, x.dtype)

  def _embed(self, tokens_BNF, positions):
    """e = Linear(tokens) + PE add, float[B, N, W]; a non-additive PE is a ConfigError."""
    check_baseline(self.kind, type(self.pe).__name__, self.pe.mechanism, self.readout)
    self.pe.check(positions, self.pe_blocks())
    x = nn.Dense(self.width, dtype=self.dtype, name="embed")(tokens_BNF.astype(self.dtype))
    add = self.pe(positions, 0).add
    return x if add is None else x + add.astype(self.dtype)


class RecurrentBaseline(_Baseline):
  """LSTM / GRU over the tokens in order, with an additive PE (module docstring)."""

  cell: str = "lstm"
  bidirectional: bool = False

  @property
  def kind(self):
    return self.cell

  @nn.compact
  def __call__(self, tokens_BNF, positions: Positions, query_index_B=None):
    x = self._embed(tokens_BNF, positions)
    # parent=None: a submodule's parameters live under the module that uses it
    # (rnn_{layer}/cell/…; bidirectional: rnn_{layer}/forward_rnn/cell/…, …/backward_rnn/cell/…,
    # the backward RNN reads the tokens reversed, its outputs put back in token order, so the last
    # step's output is [forward h after all tokens ‖ backward h after the last token], as in
    # PyTorch).
    cell = lambda: RNN_CELLS[self.cell](self.width, dtype=self.dtype, parent=None)
    for layer in range(self.depth):
      x = self._noise(x)
      if self.bidirectional:
        x = nn.Bidirectional(nn.RNN(cell(), parent=None), nn.RNN(cell(), parent=None),
                             name=f"rnn_{layer}")(x)
      else:
        x = nn.RNN(cell(), name=f"rnn_{layer}")(x)
    head = nn.Dense(self.num_outputs, dtype=self.dtype, name="head")
    if self.readout == "tokens":
      return head(x).astype(jnp.float32)
    return head(pool(x, self.readout, query_index_B)).astype(jnp.float32)


class MLPBaseline(_Baseline):
  """MLP on the flattened embedded tokens, with an additive PE (module docstring)."""

  mlp_ratio: int = 4
  kind = "mlp"

  @nn.compact
  def __call__(self, tokens_BNF, positions: Positions, query_index_B=None):
    x = self._embed(tokens_BNF, positions)
    num_tokens = x.shape[1]
    h = x.reshape(x.shape[0], -1)
    for layer in range(self.depth):
      h = self._noise(h)
      h = nn.gelu(nn.Dense(self.width * self.mlp_ratio, dtype=self.dtype,
                           name=f"hidden_{layer}")(h), approximate=False)
    if self.readout == "tokens":
      out = nn.Dense(num_tokens * self.num_outputs, dtype=self.dtype, name="head")(h)
      return out.reshape(x.shape[0], num_tokens, self.num_outputs).astype(jnp.float32)
    return nn.Dense(self.num_outputs, dtype=self.dtype, name="head")(h).astype(jnp.float32)
