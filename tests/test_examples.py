"""The examples of docs/library.md run end to end at small sizes and show what they claim:
``examples/packed_batch.py`` (a packed batch gives each document the logits it gets alone; the
loss falls) and ``examples/nnx_model.py`` (an NNX model with ``pe.make_nnx`` learns, and gives the
logits of the same model with the Linen PE). ``vit_toy.py`` is run by tests/test_library.py,
``causal_decoder.py`` by tests/test_kv_cache.py."""

from __future__ import annotations

import os
import sys

import jax
import numpy as np
import pytest

from learnpe_jax import pe

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "examples"))
import nnx_model  # noqa: E402  (examples/ is not a package)
import packed_batch  # noqa: E402


def test_packing_lays_documents_end_to_end_with_restarting_positions():
  tokens, segment_ids, documents = packed_batch.pack(np.random.default_rng(0), rows=4,
                                                     row_len=32, min_len=3, max_len=12)
  index = pe.packed_positions(segment_ids).index
  covered = np.zeros(tokens.shape, bool)
  for r, start, length in documents:
    assert 3 <= length <= 12
    rows = slice(start, start + length)
    assert len(set(segment_ids[r, rows])) == 1 and segment_ids[r, start] != packed_batch.PAD
    assert index[r, rows].tolist() == list(range(length))  # restarts at each document
    covered[r, rows] = True
  assert (covered == (segment_ids != packed_batch.PAD)).all()
  assert (tokens[~covered] == 0).all()  # padding: the end of a row, under min_len tokens
  targets, weights = packed_batch.next_token_targets(tokens, segment_ids)
  for r, start, length in documents:  # no target crosses into the next document
    assert weights[r, start + length - 1] == 0 and weights[r, start:start + length - 1].all()


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["rope", "learned"])
def test_packed_batch_example(name, capsys):
  """Each document's logits in the packed batch equal those of the document alone; without
  segment_ids they do not; positions that do not restart change an absolute PE's logits, not a
  relative one's; the loss falls and the predictable tokens are learned."""
  results = packed_batch.main([f"--pes={name}", "--steps=80", "--max_len=6"])[name]
  print(capsys.readouterr().out)
  assert results["packed_vs_alone"] < 1e-4, results
  assert results["no_segment_ids"] > 0.1, results
  if name == "learned":
    assert results["positions_not_restarted"] > 0.1, results
  else:
    assert results["positions_not_restarted"] < 1e-4, results
  assert results["last_loss"] < 0.6 * results["first_loss"], results
  assert results["accuracy"] > 0.9, results


@pytest.mark.e2e
@pytest.mark.parametrize("name", ["learned", "none"])
def test_nnx_model_example(name, capsys):
  """With a PE (``learned``: one table per block) the NNX model learns the left neighbour and its
  logits equal those with the Linen PE on ``linen_params()``; with none it cannot."""
  results = nnx_model.main([f"--pe={name}", "--steps=100"])
  print(capsys.readouterr().out)
  losses = results["losses"]
  if name == "none":
    assert losses[-1] > 2.0 and results["accuracy"] < 0.3, results["accuracy"]
    return
  assert losses[-1] < 0.2 * losses[0] and results["accuracy"] > 0.9, (losses[::10], results)
  assert results["linen_max_diff"] < 1e-5, results["linen_max_diff"]


def test_the_nnx_linen_check_would_see_other_parameters():
  """The NNX/Linen comparison is not vacuous: the Linen PE on parameters other than the NNX PE's
  (a fresh init) gives other logits, and each block reads its own table."""
  model = nnx_model.Model("learned", num_tokens=8, seed=0)
  params = model.pe.linen_params()
  assert sorted(params) == ["table_0", "table_1"]
  tokens = np.random.default_rng(0).integers(16, size=(2, 8)).astype(np.int32)
  np.testing.assert_allclose(model(tokens), nnx_model.linen_logits(model, tokens), atol=1e-6)
  linen_pe = pe.make("learned", **model.pe_args())
  positions = model.positions(8)
  other = linen_pe.init(jax.random.PRNGKey(99), positions, 0)  # makes block 0's table only
  other = {"params": {"table_0": other["params"]["table_0"], "table_1": params["table_1"]}}
  moved = model(tokens, terms_of=lambda b, x: linen_pe.apply(other, positions, b, x))
  assert float(np.abs(moved - model(tokens)).max()) > 1e-3
