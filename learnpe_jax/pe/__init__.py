"""The PE catalogue: ``registry.REGISTRY`` by name; ``python -m learnpe_jax.pe`` prints it."""

from learnpe_jax.pe.base import PositionalTerms
from learnpe_jax.pe.registry import REGISTRY, build_pe, default_pe_config, get_spec
