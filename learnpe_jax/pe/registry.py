"""The PE registry: every PE by name, with its config fields and catalogue entry.

``config.model.pe`` is a ConfigDict holding ``name`` and the PE's fields (those of its module class,
with this name's presets). ``default_pe_config(name)`` builds it; ``build_pe`` turns it into a module.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import ml_collections

from learnpe_jax.errors import ConfigError
from learnpe_jax.pe import absolute
from learnpe_jax.pe.initializers import INIT_FAMILIES
from learnpe_jax.pe.module import PositionalEncoding

# Fields every PE module has that come from the model, not from config.model.pe.
_MODEL_FIELDS = ("width", "num_heads", "num_tokens", "init_scale", "parent", "name")


@dataclasses.dataclass(frozen=True)
class PESpec:
  name: str
  module: type[PositionalEncoding]
  needs: str              # 'none' | 'index' | 'coords'
  summary: str
  preset: dict[str, Any]  # field values this name fixes

  @property
  def learnable(self) -> bool:
    return self.module.learnable

  def config_fields(self) -> dict[str, Any]:
    fields = {f.name: f.default for f in dataclasses.fields(self.module)
              if f.name not in _MODEL_FIELDS and f.default is not dataclasses.MISSING}
    if not self.learnable:
      fields.pop("init", None)
      fields.pop("native_scale", None)
    fields.update(self.preset)
    return fields


REGISTRY: dict[str, PESpec] = {}


def register(name: str, module: type[PositionalEncoding], summary: str, needs: str | None = None,
             **preset) -> None:
  if name in REGISTRY:
    raise ValueError(f"PE {name!r} registered twice")
  REGISTRY[name] = PESpec(name, module, needs or module.needs, summary, preset)


register("none", absolute.NoPE, "no PE (permutation-equivariant encoder)")
register("learned", absolute.LearnedTable, "learned table, σ-scaled init")
register("sinusoidal_1d", absolute.Sinusoidal, "sinusoidal on the token index", needs="index",
         coordinates="index")
register("sinusoidal_nd", absolute.Sinusoidal, "sinusoidal on N-D coordinates (2-D on the LST)",
         needs="coords", coordinates="coords")
register("random_fixed", absolute.FixedRandom, "fixed random table")


def get_spec(name: str) -> PESpec:
  if name not in REGISTRY:
    raise ConfigError("model.pe.name", name, f"one of {', '.join(sorted(REGISTRY))}")
  return REGISTRY[name]


def default_pe_config(name: str) -> ml_collections.ConfigDict:
  """config.model.pe for PE ``name`` with its default fields."""
  return ml_collections.ConfigDict({"name": name, **get_spec(name).config_fields()})


def pe_kwargs(pe_config) -> dict[str, Any]:
  """Validated module kwargs from config.model.pe; unknown fields are an error."""
  spec = get_spec(pe_config.name)
  allowed = spec.config_fields()
  given = {k: v for k, v in dict(pe_config).items() if k != "name"}
  for key, value in given.items():
    if key not in allowed:
      raise ConfigError(f"model.pe.{key}", value,
                        f"PE {spec.name!r} has fields {', '.join(sorted(allowed)) or '(none)'}")
  if "init" in given and given["init"] not in INIT_FAMILIES:
    raise ConfigError("model.pe.init", given["init"], f"one of {', '.join(INIT_FAMILIES)}")
  for key, value in spec.preset.items():
    if given.get(key, value) != value:
      raise ConfigError(f"model.pe.{key}", given[key], f"{value!r} for PE {spec.name!r}")
  return {**allowed, **given}


def build_pe(pe_config, *, width: int, num_heads: int, num_tokens: int,
             init_scale: Any = 1.0) -> PositionalEncoding:
  spec = get_spec(pe_config.name)
  return spec.module(width=width, num_heads=num_heads, num_tokens=num_tokens,
                     init_scale=init_scale, **pe_kwargs(pe_config))
