"""One Gatehouse process of several sharing a PostgreSQL database (tests/replicas).

    python -m tests.replicas.worker ask N_READS N_SENDS TAG     -> JSON lines, one per request
    python -m tests.replicas.worker decide REVIEWER REVIEW_ID:ACTION ... -> JSON lines, one per decision

Settings come from the environment (GATEHOUSE_DB, GATEHOUSE_DATA, GATEHOUSE_SERVERS), as a
replica's would. Every outcome, refusal and error is printed, nothing is swallowed: the test
reads them all.
"""

from __future__ import annotations

import json
import sys

from gatehouse.settings import Settings
from gatehouse.wiring import open_services
from reviews.errors import AlreadyDecidedError, ReviewError

READ = "List the files in the managed project folder."


def _print(record: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    command, *args = argv
    with open_services(Settings.resolve()) as services:
        if command == "ask":
            reads, sends, tag = int(args[0]), int(args[1]), args[2]
            requests = [READ] * reads + [
                f"Send an email to bob@example.com saying {tag}-{n}" for n in range(sends)
            ]
            for text in requests:
                try:
                    outcome = services.requests.ask(text, requester="operator")
                except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
                    _print({"error": f"{type(exc).__name__}: {exc}", "request": text})
                    continue
                review = outcome.final_output.review
                _print(
                    {
                        "thread": outcome.final_output.thread_id,
                        "status": outcome.final_output.status,
                        "review": review.id if review else None,
                        "request": text,
                    }
                )
        elif command == "decide":
            reviewer, *items = args
            for item in items:
                review_id, action = item.rsplit(":", 1)
                approve = action == "approve"
                try:
                    result = services.reviews.decide(
                        review_id,
                        reviewer=reviewer,
                        approve=approve,
                        reason=None if approve else "not this one",
                    )
                except AlreadyDecidedError as exc:
                    _print({"review": review_id, "outcome": "already_decided", "by": exc.by})
                except ReviewError as exc:
                    _print({"review": review_id, "outcome": "refused", "why": str(exc)})
                except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on it
                    _print({"review": review_id, "outcome": "error", "why": f"{type(exc).__name__}: {exc}"})
                else:
                    status = result.run.final_output.status if result.run else None
                    _print({"review": review_id, "outcome": "won", "status": status})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
