"""The machinery of the six claim scripts (``experiments/claim*.py``) and of ``RESULTS.md``.

A *claim* is a statement of the study, a list of training *jobs* that test it (a config with
overrides, run by ``framework.runner``), the table that reads it (metric columns, mean and 95%
interval over seeds per condition), a figure and a verdict rule. The verdict is computed from the
numbers, never typed in: ``holds`` / ``holds partly`` / ``does not hold at this scale``.

    python -m experiments.claim1_lst_geometry                 # train what is missing, then tabulate
    python -m experiments.claim1_lst_geometry --lanes=2       # two jobs at once, one core each
    python -m experiments.claim1_lst_geometry --print         # one command per job (a cluster)
    python -m experiments.claim1_lst_geometry --scale=paper --print   # the study's full scale
    python -m experiments.claim1_lst_geometry --scale=paper --root=gs://B/claims --write_slurm=a.sh
    python -m experiments.claim1_lst_geometry --scale=paper --root=gs://B/claims --gather
    python -m experiments.claims --all                        # every claim, then RESULTS.md
    python -m experiments.claims --all --retrain --lanes=2    # train every job again first

Jobs live in one pool, ``--root`` (default ``runs/claims``), named so that claims share them (claim 2
reads claim 1's σ sweep; claim 6 reads its σ = 0.1 models). A job whose ``summary.json`` exists, or
whose models the repo keeps in ``experiments/results/claims/records.jsonl``, is not retrained; an
interrupted one resumes from its checkpoint. When a job finishes, its models' records and the PE
analysis of its last checkpoint are kept there once (``records``), and every table is rebuilt from
them (``--gather``, also on a fresh checkout).

Statistics (``framework.stats``): per condition, the mean over seeds and a 95% Student-t
interval, mean ± t₀.₉₇₅,n−1 · sd/√n. Comparisons between two conditions use Welch's t-test
(``scipy.stats.ttest_ind``, ``equal_var=False``); "clearly above" means the one-sided Welch
p < 0.05.

Verdicts (``experiments.rules.claims``): each claim's rule decides under rule v1 (as run) and
rule v2 (a tie at a floor or ceiling is uninformative); every comparison is printed beside the
verdict with its standard error and the smallest true difference it detects with 80% power,
(z₀.₉₇₅ + z₀.₈)·se ≈ 2.80·se.

Modules, each importing only those before it: ``spec`` (Claim, ClaimJob, Column), ``jobs`` (the
pool), ``records`` (per-model metrics), ``table`` (Table, markdown), ``verdicts`` (the shared rule
in words), ``figures``, ``cli`` (one claim's command line), ``summary`` (README.md's claims
section), ``suite`` (all claims, RESULTS.md, README.md).
"""
