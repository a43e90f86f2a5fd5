"""Length generalisation (Kazemnejad et al., NeurIPS 2023): copy, reverse and addition, trained
on short sequences and scored on longer ones (``generate``, ``tfds_builder``, ``task``)."""
