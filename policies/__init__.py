"""The host's policy: what runs, what waits for a reviewer, what is refused."""
