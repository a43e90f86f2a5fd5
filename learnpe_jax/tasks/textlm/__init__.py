"""A byte-level causal language model on the Python standard library's own source (Press et al.'s
extrapolation experiment at CPU scale): the shipped corpus (``corpus``, made by ``make_corpus``),
its windows (``generate``), the tfds builder (``tfds_builder``) and the loader (``task``)."""
