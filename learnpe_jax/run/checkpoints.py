"""Orbax checkpoints of the whole vmapped train state (every model of the sweep in one tree).

The directory may be local or a URI (``gs://``; ``paths.py``). A local checkpoint is written into a
temp folder that is renamed into place (orbax's default there); on a URI, which has no atomic
rename, orbax writes the step folder in place and marks it complete with ``commit_success.txt``
(its ``COMMIT_FILE`` mode, orbax's own default for ``gs://``, chosen here for every URI scheme);
either way ``restore_latest`` sees only complete checkpoints. With several processes every process
calls ``save``/``restore`` and orbax coordinates the writes.
"""

from __future__ import annotations

import jax
import orbax.checkpoint as ocp

from learnpe_jax import paths
from learnpe_jax.errors import UserError


class Checkpointer:

  def __init__(self, directory: str, max_to_keep: int = 2):
    directory = paths.normalize(directory)
    options = dict(max_to_keep=max_to_keep, create=True)
    if paths.is_uri(directory):
      options["atomicity_options"] = ocp.options.AtomicityOptions(
          mode=ocp.options.AtomicityMode.COMMIT_FILE)
    self.manager = ocp.CheckpointManager(paths.Path(directory),
                                         options=ocp.CheckpointManagerOptions(**options))

  def save(self, step: int, state) -> None:
    self.manager.save(step, args=ocp.args.StandardSave(state))

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
