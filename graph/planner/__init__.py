"""The deterministic, offline planner: intent, capability scoring and argument extraction.

No model is consulted: the same request and manifest always give the same plan, so every
route the graph takes can be reproduced in a test and explained to a reviewer.
"""
