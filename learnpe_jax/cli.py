"""Launcher conventions shared by ``main``, ``analyze`` and ``evaluate``: every bad input is one line
on stderr and exit status 2; INFO logging from learnpe_jax only."""

from __future__ import annotations

import contextlib
import logging as py_logging
import re
import sys

from absl import flags
from absl import logging

from learnpe_jax.errors import UserError


def fail(message: str) -> None:
  print(f"error: {message}", file=sys.stderr)
  sys.exit(2)


def start(argv, hint: str = "") -> None:
  """A launcher's first step after flag parsing: quiet libraries, refuse positional arguments."""
  quiet_libraries()
  if len(argv) > 1:
    fail(f"unexpected arguments {argv[1:]}{hint}")


@contextlib.contextmanager
def user_errors():
  """Bad input found past flag parsing (a ``UserError``) ends the launcher as one line, exit 2."""
  try:
    yield
  except UserError as e:
    logging.flush()
    fail(str(e))


def _unknown_field_message(text: str, argv) -> str:
  """'unknown config field model.widht (did you mean "width"?)' from ml_collections' KeyError."""
  suggestion = re.search(r'Did you mean \\?"(\w+)\\?" instead of \\?"(\w+)', text)
  key = re.search(r"""Key \\?["'](\w+)|^\W*(\w+)""", text)
  field = suggestion.group(2) if suggestion else (key.group(1) or key.group(2)) if key else "?"
  flag = next((a.split("=")[0].lstrip("-") for a in argv[1:]
               if a.split("=")[0].endswith(f".{field}")), field)
  hint = f' (did you mean "{suggestion.group(1)}"?)' if suggestion else ""
  return f"unknown config field {flag.removeprefix('config.')}{hint}"


PE_NAME_FLAG = "--config.model.pe.name"


def pe_name_as_variant(argv: list[str]) -> list[str]:
  """``argv`` with ``--config.model.pe.name=NAME`` turned into the config string's ``pe=NAME``
  (``--config=configs/grid2d.py:smoke`` → ``--config=configs/grid2d.py:smoke,pe=NAME``), so that
  the config file builds that PE with its own fields, as ``:pe=NAME`` does; the other
  ``--config.model.pe.*`` overrides then set that PE's fields. A plain override would keep the
  fields of the PE the config file chose, which another PE does not have. Unchanged without a
  ``--config`` flag."""
  rest, names, i = [], [], 0
  while i < len(argv):
    if argv[i].startswith(PE_NAME_FLAG + "="):
      names.append(argv[i].partition("=")[2])
    elif argv[i] == PE_NAME_FLAG and i + 1 < len(argv):
      names.append(argv[i + 1])
      i += 1
    else:
      rest.append(argv[i])
    i += 1
  with_pe = lambda spec: spec + ("," if ":" in spec else ":") + f"pe={names[-1]}"
  for j, arg in enumerate(rest):
    if names and arg.startswith("--config="):
      return rest[:j] + ["--config=" + with_pe(arg.partition("=")[2])] + rest[j + 1:]
    if names and arg == "--config" and j + 1 < len(rest):
      return rest[:j + 1] + [with_pe(rest[j + 1])] + rest[j + 2:]
  return list(argv)


def parse_flags(argv):
  """absl flag parsing whose errors (e.g. an unknown --config.field) are one line, exit 2;
  ``--config.model.pe.name`` picks a PE as the config string's ``pe=NAME`` does
  (``pe_name_as_variant``)."""
  argv = pe_name_as_variant(argv)
  try:
    return flags.FLAGS(argv)
  except flags.Error as e:
    lines = [l.strip() for l in str(e).splitlines() if l.strip()]
    # A config file's own exception is the last line of a traceback-shaped message.
    fail(lines[-1] if len(lines) > 1 and "Traceback" in str(e) else lines[0])
  except (KeyError, AttributeError) as e:
    fail(_unknown_field_message(str(e), argv))
  except (ValueError, TypeError) as e:
    fail(f"bad config override: {' '.join(str(e).split())}")


class QuietLibraries:
  """Show INFO lines of learnpe_jax only; libraries (orbax, jax, tfds) speak from WARNING up."""

  BENIGN = ("Using custom data configuration",)  # tfds, for every generated dataset variant

  def filter(self, record):
    if str(record.msg).startswith(self.BENIGN):
      return False
    if "orbax" in record.pathname:  # checkpoint problems surface as our own one-line errors
      return record.levelno >= py_logging.CRITICAL
    return record.levelno >= py_logging.WARNING or "learnpe_jax" in record.pathname


def quiet_libraries() -> None:
  logging.get_absl_handler().addFilter(QuietLibraries())
