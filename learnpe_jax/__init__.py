"""learnpe_jax: learning positional encodings in transformers, many init scales in one program.

Reproduces and extends Ito, Cocchi, Klinger, Ram, Campbell & Hearne, "Learning interpretable
positional encodings in transformers depends on initialization", ICML 2025 (arXiv 2406.08272).

Its 50 PEs are also a library for a Flax model of one's own: ``learnpe_jax.pe.make`` and
``learnpe_jax.models.attention.attend_with_terms`` (docs/library.md; ``pip install -e .`` brings
jax, flax and numpy only, ``pip install -e ".[experiments]"`` the trainer, tasks and analysis).
"""

__version__ = "0.1.0"
