"""Another Gatehouse process on the same database, answering a thread's question as the chat
page of a second replica would (tests/reviews/test_questions.py).

    python -m tests.reviews.answering_replica THREAD USER ACTION CONTENT_JSON

Settings come from the environment (GATEHOUSE_DB, GATEHOUSE_DATA). It starts no MCP server:
it waits (at most a minute) for the thread's question to appear in the database, answers it,
and prints one JSON line: the question's id and the server that asked, or the error.
"""

from __future__ import annotations

import json
import sys
import time

from gatehouse.settings import Settings
from gatehouse.wiring import open_services

WAIT_SECONDS = 60.0


def main(argv: list[str]) -> int:
    thread, user, action, content = argv
    with open_services(Settings.resolve(), connect_servers=False) as services:
        deadline = time.monotonic() + WAIT_SECONDS
        while not (pending := services.questions.pending(thread)):
            if time.monotonic() > deadline:
                print(json.dumps({"error": f"no question on thread {thread}"}))
                return 1
            time.sleep(0.05)
        question = pending[0]
        services.questions.answer(
            question.id,
            by=user,
            action=action,  # type: ignore[arg-type]  # the test passes accept, decline or cancel
            content=json.loads(content),
        )
        print(json.dumps({"question": question.id, "server": question.server}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
