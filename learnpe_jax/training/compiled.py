"""The compiled parts of training: vmapped init, a scanned chunk of train steps, and eval.

Many models, one program (docs/design.md, "The training loop"): every function here maps over a
leading model axis with ``jax.vmap``; ``train_chunk`` runs ``config.train.chunk_steps`` steps in one
``jax.lax.scan`` inside one ``jit``; the dataset lives on device and each model draws its batches by
index from its own key.
"""

from __future__ import annotations

import clu.metrics
import jax
import jax.numpy as jnp
import numpy as np
import optax

from learnpe_jax.models import baselines
from learnpe_jax.models.encoder import Encoder
from learnpe_jax.pe.registry import build_pe
from learnpe_jax.positions import randomized_positions
from learnpe_jax.tasks.base import TaskData
from learnpe_jax.training import layout, objectives, sharding, trim
from learnpe_jax.training.optim import make_optimizer
from learnpe_jax.training.sweep import ModelAxis


# The randomized positions' key stream: ``fold_in(data_key, RANDOMIZED_STREAM)`` (the batch order
# folds in the epoch number, never this large; the dropout uses ``split(data_key)[1]``).
RANDOMIZED_STREAM = 0x52414E44

TrainMetrics = clu.metrics.Collection.create(loss=clu.metrics.Average.from_output("loss"),
                                             score=clu.metrics.Average.from_output("score"))


def build_model(config, task: TaskData, pe_init_scale=1.0):
  """The model of ``config.model.kind``: the transformer ``Encoder`` (default) or a baseline
  (``models/baselines.py``: 'lstm', 'gru', 'mlp'), with the PE of ``config.model.pe``."""
  m = config.model
  extra_tokens = 1 if m.readout == "token" else 0  # the appended readout token's PE row
  # Randomized positions draw indices up to model.randomized_positions − 1: a table of that many rows.
  rows = max(task.num_tokens + extra_tokens, m.randomized_positions)
  pe = build_pe(m.pe, width=m.width, num_heads=m.num_heads, num_tokens=rows,
                init_scale=pe_init_scale)
  kind = m.kind
  if kind in baselines.RNN_CELLS:
    return baselines.RecurrentBaseline(
        pe=pe, cell=kind, bidirectional=m.bidirectional, width=m.width,
        depth=m.depth, num_outputs=task.num_outputs, readout=m.readout, dtype=jnp.dtype(m.dtype))
  if kind == "mlp":
    return baselines.MLPBaseline(pe=pe, width=m.width, depth=m.depth, mlp_ratio=m.mlp_ratio,
                                 num_outputs=task.num_outputs, readout=m.readout,
                                 dtype=jnp.dtype(m.dtype))
  return Encoder(pe=pe, width=m.width, depth=m.depth, num_heads=m.num_heads,
                 mlp_ratio=m.mlp_ratio, num_outputs=task.num_outputs, readout=m.readout,
                 pe_placement=m.pe_placement, pe_sharing=m.pe_sharing, norm=m.norm,
                 mlp_final_activation=m.mlp_final_activation, causal=m.causal,
                 weight_init=m.weight_init, pe_dropout=m.pe_dropout,
                 dtype=jnp.dtype(m.dtype), exact_shortcuts=m.exact_shortcuts)


def epoch_permutation(key, epoch, num_examples: int):
  """The shuffled order of epoch ``epoch`` (sampling without replacement within an epoch)."""
  return jax.random.permutation(jax.random.fold_in(key, epoch), num_examples)


def _pad_for_eval(split: dict[str, np.ndarray], batch: int):
  """Split arrays reshaped to [num_batches, batch, ...] (zero-padded) and a validity mask."""
  n = len(split["target"])
  nb = -(-n // batch)
  pad = nb * batch - n
  out = {k: np.concatenate([v, np.zeros((pad,) + v.shape[1:], v.dtype)]).reshape(
      (nb, batch) + v.shape[1:]) for k, v in split.items()}
  out["valid"] = (np.arange(nb * batch) < n).reshape(nb, batch)
  return out


class Trainer:
  """Compiled init/train/eval for one config, task and model axis."""

  def __init__(self, config, task: TaskData, axis: ModelAxis):
    self.config, self.task, self.axis = config, task, axis
    self.model = build_model(config, task)
    self.tx = make_optimizer(config.optim)
    self.positions = jax.tree.map(jnp.asarray, task.model_positions)
    self.mesh = sharding.model_mesh(axis.size)
    models_on, everywhere = sharding.per_model(self.mesh), sharding.replicated(self.mesh)
    state_sharding = {"models": models_on, "step": everywhere}
    train = {k: v for k, v in task.train.items() if k != "level"}
    self.train_positions = self.positions  # the training steps' (``train.trim_padding``: cut)
    if config.train.trim_padding:
      train, cut_positions = trim.cut(train, task.model_positions, trim.scored_length(train))
      self.train_positions = jax.tree.map(jnp.asarray, cut_positions)
    self.train_data = jax.device_put(train, everywhere)
    eval_batch = min(config.train.eval_batch_size, max(len(task.train["target"]),
                                                      len(task.test["target"])))
    self.eval_data = {name: jax.device_put(_pad_for_eval(split, eval_batch), everywhere)
                      for name, split in (("train", task.train), ("test", task.test))}
    for name, split in task.extra_eval.items():  # small sets: a batch of their own size
      batch = min(config.train.eval_batch_size, len(split["target"]))
      self.eval_data[name] = jax.device_put(_pad_for_eval(split, batch), everywhere)
    self.num_levels = len(task.level_names)
    self.layout = layout.layout(config.train, axis.size)
    self.init = jax.jit(self._init, out_shardings=state_sharding)
    self.train_chunk = jax.jit(self._train_chunk, donate_argnums=0,
                               out_shardings=(state_sharding, models_on))
    self.evaluate = jax.jit(self._evaluate, static_argnums=1, out_shardings=models_on)
    self.pe_vectors = jax.jit(self._pe_vectors, out_shardings=models_on)
    self.pe_logits = jax.jit(self._pe_logits, out_shardings=models_on)

  # ---- model ---------------------------------------------------------------------------------
  def apply(self, params, batch, dropout_key=None, positions=None):
    """The model's outputs; with ``dropout_key`` its dropout (``model.pe_dropout``) is on;
    ``positions``: the batch's own (default: the task's, shared by every example)."""
    positions = self.positions if positions is None else positions
    if dropout_key is None:
      return self.model.apply({"params": params}, batch["tokens"], positions,
                              batch.get("query_index"))
    return self.model.apply({"params": params}, batch["tokens"], positions,
                            batch.get("query_index"), deterministic=False,
                            rngs={"dropout": dropout_key})

  def _training_positions(self, data_key, step, batch):
    """The positions of a training step's batch: the task's, or with
    ``model.randomized_positions`` = M each example's sorted distinct draws from 0 … M − 1
    (Ruoss et al. 2023), one per real token (a sequence task's tokens up to its last scored one;
    the padding after them follows), from stream ``fold_in(data_key, RANDOMIZED_STREAM)`` folded
    with the step (apart from the batch order's and the dropout's keys)."""
    m = self.config.model.randomized_positions
    if not m:
      return None
    key = jax.random.fold_in(jax.random.fold_in(data_key, RANDOMIZED_STREAM), step)
    return self._drawn_positions(key, batch)

  def _drawn_positions(self, key, batch):
    """Randomized positions (``model.randomized_positions`` = M) for one batch: each example's
    sorted draws from 0 … M − 1, one per real token (a sequence task's tokens up to its last
    scored one; the padding after them follows)."""
    lengths = None
    if self.task.kind == "sequence":
      scored = batch["loss_mask"] > 0
      lengths = jnp.max(jnp.where(scored, jnp.arange(scored.shape[1]) + 1, 0), axis=1)
    return randomized_positions(key, batch["tokens"].shape[0], batch["tokens"].shape[1],
                                self.config.model.randomized_positions, lengths)

  def _dropout_key(self, data_key, step):
    """The key of a model's training-step dropout (None without ``model.pe_dropout``): stream
    ``split(data_key)[1]`` folded with the step, apart from the batch order's keys."""
    if not self.config.model.pe_dropout:
      return None
    return jax.random.fold_in(jax.random.split(data_key)[1], step)

  # ---- init ----------------------------------------------------------------------------------
  def _init(self):
    sample = {k: jnp.asarray(v[:1]) for k, v in self.task.train.items()}  # the full length

    def init_one(key, pe_init_scale, learning_rate):
      model = build_model(self.config, self.task, pe_init_scale=pe_init_scale)
      params = model.init(key, sample["tokens"], self.positions, sample.get("query_index"))
      opt_state = make_optimizer(self.config.optim, learning_rate).init(params["params"])
      return {"params": params["params"], "opt_state": opt_state}

    models = jax.vmap(init_one)(self.axis.keys(0), self.axis.array("pe_init_scale"),
                                self.axis.array("learning_rate"))
    models["data_key"] = self.axis.keys(1)
    models["diverged_step"] = jnp.full((self.axis.size,), -1, jnp.int32)
    return {"models": models, "step": jnp.zeros((), jnp.int32)}

  # ---- train ---------------------------------------------------------------------------------
  def _steps_per_epoch(self) -> int:
    return len(self.task.train["target"]) // self.config.train.batch_size

  def _train_step(self, model_state, step, perms_EN, first_epoch):
    """One step of one model. Its batch is slice ``step % steps_per_epoch`` of the permutation of
    epoch ``step // steps_per_epoch`` (row ``epoch − first_epoch`` of ``perms_EN``)."""
    per_epoch, batch_size = self._steps_per_epoch(), self.config.train.batch_size
    perm = perms_EN[step // per_epoch - first_epoch]
    idx = jax.lax.dynamic_slice_in_dim(perm, (step % per_epoch) * batch_size, batch_size)
    batch = jax.tree.map(lambda a: a[idx], self.train_data)

    dropout_key = self._dropout_key(model_state["data_key"], step)
    positions = self._training_positions(model_state["data_key"], step, batch)
    positions = self.train_positions if positions is None else positions

    def loss_fn(params):
      loss, score = objectives.per_example(self.task.kind,
                                           self.apply(params, batch, dropout_key, positions), batch)
      return loss.mean(), (loss, score)

    (loss, (loss_B, score_B)), grads = jax.value_and_grad(loss_fn, has_aux=True)(
        model_state["params"])
    updates, opt_state = self.tx.update(grads, model_state["opt_state"], model_state["params"])
    params = optax.apply_updates(model_state["params"], updates)
    # Divergence isolation: a model whose loss or gradient is not finite stays frozen from here on.
    finite = jnp.isfinite(loss) & jnp.all(jnp.array(
        [jnp.all(jnp.isfinite(g)) for g in jax.tree.leaves(grads)]))
    alive = model_state["diverged_step"] < 0
    keep_new = finite & alive
    select = lambda new, old: jax.tree.map(lambda a, b: jnp.where(keep_new, a, b), new, old)
    new_state = dict(model_state,
                     params=select(params, model_state["params"]),
                     opt_state=select(opt_state, model_state["opt_state"]),
                     diverged_step=jnp.where(alive & ~finite, step,
                                             model_state["diverged_step"]))
    metrics = TrainMetrics.single_from_model_output(loss=loss_B, score=score_B)
    return new_state, metrics

  def _train_chunk(self, state):
    """``chunk_steps`` train steps of every model: ``lax.scan`` over the chunk of the vmapped
    ``_train_step`` (``layout.scan_vmap``, laid out by ``train.models_per_group`` and
    ``train.parallel_streams``). Returns the state and per-model chunk means.

    The epoch permutations a chunk touches are drawn once per chunk (a sort of the training set
    per model and epoch), not once per step.
    """
    chunk, per_epoch = self.config.train.chunk_steps, self._steps_per_epoch()
    first_epoch = state["step"] // per_epoch
    epochs = first_epoch + jnp.arange(chunk // per_epoch + 2)
    num_train = len(self.task.train["target"])
    perms_MEN = jax.vmap(lambda key: jax.vmap(
        lambda e: epoch_permutation(key, e, num_train))(epochs))(state["models"]["data_key"])
    steps = state["step"] + jnp.arange(chunk, dtype=jnp.int32)

    def train_step(carry, step, perms_EN):
      """One step of one model, its metrics added to the chunk's."""
      model_state, chunk_metrics = carry
      model_state, step_metrics = self._train_step(model_state, step, perms_EN, first_epoch)
      return model_state, chunk_metrics.merge(step_metrics)

    no_metrics = jax.vmap(lambda _: TrainMetrics.empty())(jnp.arange(self.axis.size))
    models, metrics = layout.scan_vmap(train_step, (state["models"], no_metrics), steps,
                                       perms_MEN, self.layout)
    return ({"models": models, "step": state["step"] + chunk},
            jax.vmap(lambda m: m.compute())(metrics))

  # ---- eval ----------------------------------------------------------------------------------
  def _evaluate(self, params, split: str, draw_key=None):
    """Per-model mean loss and score (accuracy or −MSE), overall and per level.

    With ``model.pe_dropout_at_eval`` (the companion's script scores its models with their
    dropout on) the dropout stays on here too, drawn from a fixed per-model key (stream 2 of
    ``ModelAxis.keys``) folded with the batch index: the same parameters score the same.

    Positions: the task's own (0 … n − 1), unless ``draw_key`` is given to a run trained with
    ``model.randomized_positions``: then each batch's positions are drawn as training draws them
    (``_drawn_positions``, key ``fold_in(draw_key, batch index)``, the same for every model), as
    Ruoss et al.'s released evaluation scores its randomized models; the studies score at the
    task's positions."""
    data = self.eval_data[split]
    batches = {k: v for k, v in data.items() if k != "valid"}
    batches["index"] = jnp.arange(len(data["valid"]))
    eval_keys = self.axis.keys(2)

    def eval_one(p, key):
      def on_batch(batch):
        dropout_key = (jax.random.fold_in(key, batch["index"])
                       if self.config.model.pe_dropout_at_eval else None)
        positions = (None if draw_key is None else
                     self._drawn_positions(jax.random.fold_in(draw_key, batch["index"]), batch))
        loss, score = objectives.per_example(
            self.task.kind, self.apply(p, batch, dropout_key, positions), batch)
        return loss, score
      loss, score = jax.lax.map(on_batch, batches)
      valid = data["valid"].astype(jnp.float32)
      onehot = jax.nn.one_hot(data["level"], self.num_levels) * valid[..., None]
      mean = lambda x: (x * valid).sum() / valid.sum()
      by_level = jnp.einsum("bs,bsl->l", score, onehot) / jnp.maximum(onehot.sum((0, 1)), 1)
      return {"loss": mean(loss), "score": mean(score), "score_by_level": by_level}

    return jax.vmap(eval_one)(params, eval_keys)

  def _pe_vectors(self, params):
    """float[M, blocks, N, W] the per-token vectors the PE adds (None if it adds none)."""
    return jax.vmap(lambda p: self.model.apply({"params": p}, self.positions,
                                               method="pe_add_terms"))(params)

  def _pe_logits(self, params):
    """float[M, blocks, H, N, N] the content-free attention logits the PE adds (None if none)."""
    return jax.vmap(lambda p: self.model.apply({"params": p}, self.positions,
                                               method="pe_logit_terms"))(params)
