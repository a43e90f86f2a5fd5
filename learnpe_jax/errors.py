"""User-facing errors: one line, naming the field, the value and what is allowed."""


class UserError(ValueError):
  """A problem with what the user asked for (config, files, workdir), reported in one line."""


class ConfigError(UserError):
  """A config field holds a value that is not allowed."""

  def __init__(self, field: str, value, allowed: str):
    self.field, self.value, self.allowed = field, value, allowed
    super().__init__(f"config.{field}={value!r} is not allowed: {allowed}")


class PEError(ConfigError):
  """A catalogue PE was asked, through the library (``pe.make`` or a call of the PE module from
  one's own model), for something it cannot do. The message is in the library's words: it names the
  PE by its catalogue name, the argument (of ``make`` or of the call) and what is allowed, and
  speaks of no config file.

  It is a ``ConfigError`` (so a ``ValueError``), and carries the same problem in the config's words:
  ``field``/``value``/``allowed`` are the config field (e.g. ``model.pe.name``), its value and what
  the config may hold; ``config_error()`` is that ConfigError, which the config layer
  (``pe.registry.pe_kwargs``, ``build_pe``, ``check_pe_for_task``) raises in its place.

  Attributes:
    pe: the PE's catalogue name (e.g. 'rope').
    argument: what was wrong, as the caller wrote it: ``num_heads``, ``positions.index``, ``x_BNW``.
    message: the one-line library message (``str(error)``).
  """

  def __init__(self, pe: str, argument: str, message: str, *, field: str, value, allowed: str):
    self.pe, self.argument, self.message = pe, argument, message
    self.field, self.value, self.allowed = field, value, allowed
    UserError.__init__(self, message)

  def config_error(self, value=None) -> ConfigError:
    """The same problem in the config's words (``value``: the config's own value, e.g. the PE name
    as the config spells it; default the value this error holds)."""
    return ConfigError(self.field, self.value if value is None else value, self.allowed)


class DataError(UserError):
  """An input file is malformed: the message names the file, the place and the problem."""
