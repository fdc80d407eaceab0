"""Named routes through the graph (graph/diagram.py draws them), so tests read as its flow."""

START = ["preprocess_request", "classify_intent"]
DISCOVER_SELECT_VALIDATE = ["discover_capabilities", "select_capability", "validate_capability"]
EXECUTE = ["build_mcp_request", "invoke_mcp_capability"]
HAPPY = [*START, *DISCOVER_SELECT_VALIDATE, *EXECUTE, "integrate_result", "generate_final_response"]
DIRECT_ANSWER = [*START, "answer_without_mcp", "generate_final_response"]
TO_REVIEW = [*START, *DISCOVER_SELECT_VALIDATE, "mark_needs_review"]
