"""Reviews: the one place that resumes a paused graph (the ledger and audit log join it later)."""
