"""The compiled training: ``compiled`` (``Trainer``: init, train chunk, eval over the model axis),
``loop`` (``train_and_evaluate``: the host loop), ``sweep`` (the model axis), ``layout`` (the models'
layout on devices), ``optim``, ``objectives``, ``sharding``, ``config_validation``; ``report``
(scores and ``summary.json``) and ``restore`` (``load_run``: a trained run back from its workdir)."""
