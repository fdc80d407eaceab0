"""Reviews: the ledger, the audit log, the one place that resumes a paused graph, and the two
services the front ends call: ReviewService (service.py, the reviewer's side) and
RequestService (requests.py, the operator's side)."""
