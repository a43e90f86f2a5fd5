"""learnpe_jax: learning positional encodings in transformers, many init scales in one program.

Reproduces and extends Ito, Cocchi, Klinger, Ram, Campbell & Hearne, "Learning interpretable
positional encodings in transformers depends on initialization", ICML 2025 (arXiv 2406.08272).
"""

__version__ = "0.1.0"
