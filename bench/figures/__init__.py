"""One module per figure; each exposes ``run(workspace) -> list[Figure]``."""
