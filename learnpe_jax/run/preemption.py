"""SIGTERM handling: finish the current chunk, save a checkpoint, and stop cleanly.

A scheduler's SIGTERM (pre-emption) sets a flag; the train loop checks it after every chunk, saves a
checkpoint and raises ``Preempted``; ``main`` reports it in one line and exits with status 143.
Rerunning the same command resumes. (SIGKILL cannot be caught: a rerun resumes from the last
periodic checkpoint instead.)

With several processes (``--distributed``, a pod slice) the flag is shared after every chunk
(``sharding.any_process``: one all-gather of one int), so a SIGTERM to any process makes every
process save the same step and stop; the checkpoint is one orbax save of all processes. On a
pre-emptible (spot) TPU VM the rerun starts on a fresh VM: the workdir must be on cloud storage
(``--workdir=gs://…``) for it to find the checkpoint.
"""

from __future__ import annotations

import contextlib
import signal
import threading


class Preempted(Exception):
  """The run stopped on SIGTERM after saving a checkpoint at ``step``."""

  def __init__(self, step: int, workdir: str, here: bool = True):
    self.step = step
    origin = "" if here else " (sent to another process of this job)"
    super().__init__(f"stopped by SIGTERM{origin} at step {step}; checkpoint saved in {workdir}; "
                     f"rerun the same command to resume")


class StopFlag:
  requested = False


@contextlib.contextmanager
def sigterm_sets_flag():
  """Within the block, SIGTERM sets ``flag.requested`` instead of killing the process."""
  flag = StopFlag()
  if threading.current_thread() is not threading.main_thread():
    yield flag  # signal handlers can only be installed from the main thread
    return

  def handler(signum, frame):
    del signum, frame
    flag.requested = True

  previous = signal.signal(signal.SIGTERM, handler)
  try:
    yield flag
  finally:
    signal.signal(signal.SIGTERM, previous)
