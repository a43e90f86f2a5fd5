"""User-facing errors: one line, naming the field, the value and what is allowed."""


class UserError(ValueError):
  """A problem with what the user asked for (config, files, workdir), reported in one line."""


class ConfigError(UserError):
  """A config field holds a value that is not allowed."""

  def __init__(self, field: str, value, allowed: str):
    self.field, self.value, self.allowed = field, value, allowed
    super().__init__(f"config.{field}={value!r} is not allowed: {allowed}")


class DataError(UserError):
  """An input file is malformed: the message names the file, the place and the problem."""
