"""Everything a run writes to its workdir, never torn (``paths.write_text``: an atomic rename on a
local path; a temp object and a server-side copy on ``gs://``/``s3://``).

  config.json     the resolved config (a rerun with a different config is refused)
  metrics.jsonl   one line per model and evaluation step; a torn last line is dropped on resume
  summary.json    one record per model at the end (a function of the config alone: the same config
                  and seed give the same bytes)
  timing.json     how long the run took and on how many CPU cores (``loop.py`` measures it; kept
                  apart from the summary because it differs between reruns)
  checkpoints/    orbax checkpoints (see ``checkpoints.py``)

The workdir may be a local path or a URI (``gs://bucket/runs/x``; ``paths.py``). With several
processes (``--distributed``) only the writer, process 0, writes these files; orbax coordinates the
checkpoint writes of all processes itself.
"""

from __future__ import annotations

import json
import math
import time
import uuid

from learnpe_jax import paths
from learnpe_jax.errors import UserError

# Config fields that may change between a run and its resumption without changing its results.
# ``train.num_steps`` may grow: rerunning with more steps continues the run. The last four only
# schedule the same computation differently (results equal up to float roundoff).
RESUMABLE_FIELDS = ("resume", "train.log_every", "train.num_steps", "train.models_per_group",
                    "train.parallel_streams", "model.exact_shortcuts", "train.trim_padding")
# Fields added after runs were recorded: absent from an older config.json, they hold this value
# (so such a run resumes; any other value is a different config). A resumed older LST run scores
# the human puzzles from its next eval on.
ADDED_FIELDS = {"model.kind": "transformer", "model.bidirectional": False, "optim.name": "adamw",
                "optim.momentum": 0.9, "data.generator": "reveal", "data.eval_puzzles": "human",
                "model.mlp_final_activation": "none", "model.causal": False,
                "model.weight_init": "flax", "model.pe_dropout": 0.0,
                "model.pe_dropout_at_eval": False, "optim.pe_lr_scale": 1.0,
                "model.randomized_positions": 0, "model.eval_rope_scaling": [],
                "train.trim_padding": False}


def with_added_fields(config_dict: dict) -> dict:
  """A recorded config with every ``ADDED_FIELDS`` entry it lacks filled in (where its section
  exists), so code reads plain fields of old and new runs alike."""
  out = json.loads(json.dumps(config_dict))
  for dotted, value in ADDED_FIELDS.items():
    *sections, leaf = dotted.split(".")
    node = out
    for s in sections:
      node = node.get(s) if isinstance(node, dict) else None
    if isinstance(node, dict):
      node.setdefault(leaf, value)
  return out


def json_safe(obj):
  """NaN/Inf → None, so files stay strict JSON."""
  if isinstance(obj, float) and not math.isfinite(obj):
    return None
  if isinstance(obj, dict):
    return {k: json_safe(v) for k, v in obj.items()}
  if isinstance(obj, (list, tuple)):
    return [json_safe(v) for v in obj]
  return obj


def write_json(path: str, obj) -> None:
  paths.write_text(path, json.dumps(json_safe(obj), indent=2, allow_nan=False) + "\n")


def _flatten(d, prefix=""):
  out = {}
  for k, v in d.items():
    if isinstance(v, dict):
      out.update(_flatten(v, f"{prefix}{k}."))
    else:
      out[f"{prefix}{k}"] = v
  return out


def read_metrics(workdir: str) -> list[dict]:
  """All complete lines of WORKDIR/metrics.jsonl (a torn last line of a killed run is skipped)."""
  path = paths.join(workdir, "metrics.jsonl")
  if not paths.exists(path):
    return []
  rows = []
  for line in paths.read_text(path).splitlines(keepends=True):
    try:
      rows.append(json.loads(line))
    except json.JSONDecodeError:
      break
  return rows


class Workdir:
  """The run's folder. With several processes only the ``writer`` (process 0) writes files."""

  def __init__(self, path: str, writer: bool = True):
    self.writer = writer
    self.path = paths.normalize(path)
    if not writer:  # the writer checks (and creates) the folder; the others only read it
      return
    try:
      paths.makedirs(self.path)
      probe = paths.Path(paths.join(self.path, f".write_probe.{uuid.uuid4().hex}.tmp"))
      probe.write_text("")
      probe.unlink()
    except OSError as e:
      raise UserError(f"workdir {path!r} is not writable ({e.strerror or e})") from None
    except Exception as e:  # remote filesystems raise their own types (auth, bucket missing)
      if not paths.is_uri(self.path):
        raise
      raise UserError(f"workdir {path!r} is not writable ({type(e).__name__}: "
                      f"{str(e).splitlines()[0][:200] if str(e) else ''})") from None

  def file(self, name: str) -> str:
    return paths.join(self.path, name)

  def prepare(self, config_dict: dict, resume: bool, barrier=lambda: None) -> None:
    """Refuse a workdir that holds a different run unless ``resume`` is False, in which case the
    earlier run's files are moved aside (never deleted). Writes nothing else: the config is
    recorded by ``record_config`` once the run has started (so a failed start changes nothing).
    ``barrier`` (several processes: ``sharding.barrier``) runs after every process has read the
    old config and before the writer moves anything."""
    if self.writer:
      paths.remove_temps(self.path)  # left by a writer killed mid-write
    path = self.file("config.json")
    if not paths.exists(path):
      barrier()
      return
    old = _flatten(json.loads(paths.read_text(path)))
    new = _flatten(json.loads(json.dumps(config_dict)))
    changed = sorted(k for k in set(old) | set(new)
                     if old.get(k, ADDED_FIELDS.get(k)) != new.get(k, ADDED_FIELDS.get(k))
                     and k not in RESUMABLE_FIELDS)
    if changed and resume:
      k = changed[0]
      raise UserError(
          f"workdir {self.path} holds a run with a different config ({k}: {old.get(k)!r} there, "
          f"{new.get(k)!r} now; {len(changed)} field(s) differ); use another --workdir or "
          f"--config.resume=false to start over (the old run is kept in a subfolder)")
    barrier()
    if (changed or not resume) and self.writer:
      self._move_aside()

  def record_config(self, config_dict: dict) -> None:
    if self.writer:
      write_json(self.file("config.json"), config_dict)

  def _move_aside(self) -> None:
    aside = paths.join(self.path, time.strftime("previous_%Y%m%d_%H%M%S"))
    paths.makedirs(aside)
    for name in ("config.json", "metrics.jsonl", "summary.json", "timing.json", "checkpoints"):
      if paths.exists(self.file(name)):
        paths.move(self.file(name), paths.join(aside, name))

  # timing.json --------------------------------------------------------------------------------
  def read_timing(self) -> dict:
    """The last ``write_timing`` record ({} when the run has none yet)."""
    path = self.file("timing.json")
    return json.loads(paths.read_text(path)) if paths.exists(path) else {}

  def write_timing(self, timing: dict) -> None:
    if self.writer:
      write_json(self.file("timing.json"), timing)

  # metrics.jsonl ------------------------------------------------------------------------------
  def read_metrics(self) -> list[dict]:
    return read_metrics(self.path)

  def truncate_metrics(self, last_step: int) -> None:
    """Keep only rows with step ≤ ``last_step`` (the checkpoint a resumed run starts from)."""
    if not self.writer:
      return
    rows = [r for r in self.read_metrics() if r["step"] <= last_step]
    paths.write_text(self.file("metrics.jsonl"), "".join(json.dumps(r) + "\n" for r in rows))

  def append_metrics(self, rows: list[dict]) -> None:
    if not self.writer:
      return
    paths.append_text(self.file("metrics.jsonl"),
                      "".join(json.dumps(json_safe(r), allow_nan=False) + "\n" for r in rows))
