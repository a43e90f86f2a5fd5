"""Tasks: each provides ``load_task(config) -> TaskData`` (see ``tasks/registry.py``)."""
