"""TensorBoard summaries through ``clu.metric_writers``, when the ``tensorboard`` extra is installed.

``clu.metric_writers`` imports TensorFlow; without it (the default install) this module writes
nothing and ``metrics.jsonl`` remains the record. Each model's scalars go under the tag prefix
``sigma=<σ>/lr=<lr>/seed=<seed>/``, into ``WORKDIR/tensorboard``.
"""

from __future__ import annotations

import numbers

from absl import logging

from learnpe_jax import paths


def create_writer(workdir: str, enabled: bool = True):
  if not enabled:
    return None
  try:
    from clu import metric_writers  # pylint: disable=g-import-not-at-top
  except ImportError:
    logging.info("TensorBoard summaries off (pip install -e '.[tensorboard]' to turn them on).")
    return None
  return metric_writers.SummaryWriter(paths.join(workdir, "tensorboard"))  # tf.io.gfile: gs:// too


def write_rows(writer, rows: list[dict]) -> None:
  """metrics.jsonl rows (one per model) as scalars at their step."""
  if writer is None or not rows:
    return
  scalars = {}
  for row in rows:
    prefix = f"sigma={row['pe_init_scale']:g}/lr={row['learning_rate']:g}/seed={row['seed']}"
    for key, value in row.items():
      if key in ("step", "model", "pe_init_scale", "learning_rate", "seed"):
        continue
      if isinstance(value, dict):
        scalars.update({f"{prefix}/{key}/{k}": v for k, v in value.items()
                        if isinstance(v, numbers.Number)})
      elif isinstance(value, numbers.Number) and not isinstance(value, bool):
        scalars[f"{prefix}/{key}"] = value
  writer.write_scalars(rows[0]["step"], scalars)
  writer.flush()
