"""Orbax checkpoints of the whole vmapped train state (every model of the sweep in one tree)."""

from __future__ import annotations

import os

import jax
import orbax.checkpoint as ocp

from learnpe_jax.errors import UserError


class Checkpointer:

  def __init__(self, directory: str, max_to_keep: int = 2):
    self.manager = ocp.CheckpointManager(
        os.path.abspath(directory),
        options=ocp.CheckpointManagerOptions(max_to_keep=max_to_keep, create=True))

  def latest_step(self) -> int | None:
    return self.manager.latest_step()

  def save(self, step: int, state) -> None:
    self.manager.save(step, args=ocp.args.StandardSave(state))

  def all_steps(self) -> list[int]:
    return list(self.manager.all_steps())

  def restore_latest(self, like):
    """The latest complete checkpoint restored into the structure of ``like``, or None."""
    step = self.manager.latest_step()
    return None if step is None else self.restore(step, like)

  def restore(self, step: int, like):
    """Checkpoint ``step`` restored into the structure of ``like``."""
    abstract = jax.tree.map(ocp.utils.to_shape_dtype_struct, like)
    try:
      return self.manager.restore(step, args=ocp.args.StandardRestore(abstract))
    except Exception as e:  # orbax raises many types for damaged files
      raise UserError(f"checkpoint {self.manager.directory}/{step} is unreadable "
                      f"({type(e).__name__}: {str(e).splitlines()[0][:200]}); remove that folder "
                      f"to resume from an earlier one, or use --config.resume=false") from None

  def close(self) -> None:
    self.manager.wait_until_finished()
    self.manager.close()
