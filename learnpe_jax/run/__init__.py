"""A run's files: ``workdir`` (config.json, metrics.jsonl, summary.json), ``checkpoints`` (orbax),
``preemption`` (the SIGTERM flag), ``tensorboard``. Only the foundation below them."""
