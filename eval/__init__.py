"""The capability-selection benchmark of issue 15: `make eval` (see eval/run.py)."""
