"""A process appending to the audit log, for tests/reviews/test_audit_chains.py.

    python -m tests.reviews.audit_writer DATABASE NAME COUNT          COUNT events, each committed alone
    python -m tests.reviews.audit_writer DATABASE NAME COUNT --hold   COUNT events in one transaction,
        then ``HELD <chain>`` on stdout, and the transaction kept open until a line comes on stdin;
        then one more event in it, and the commit
    python -m tests.reviews.audit_writer DATABASE NAME 0 --on-line  ``READY`` once the log is open,
        then one event per line on stdin, each committed alone, until stdin ends

Every event appended is printed as ``<seq> <chain> <link>``, after its commit.
"""

from __future__ import annotations

import sys

from reviews.audit import AuditEvent, AuditLog


def _print(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _place(event: AuditEvent) -> str:
    return f"{event.seq} {event.chain} {event.link}"


def main(argv: list[str]) -> int:
    database, name, count, *mode = argv
    log = AuditLog(database)
    try:
        if mode == ["--on-line"]:
            _print("READY")
            events = []
            for n, _ in enumerate(sys.stdin):
                event = log.append("event", {"by": name, "n": n}, actor=name)
                _print(_place(event))
        elif mode == ["--hold"]:
            with log.database.write():
                events = [log.append("held", {"by": name, "n": n}, actor=name) for n in range(int(count))]
                _print(f"HELD {events[0].chain}")
                sys.stdin.readline()
                events.append(log.append("held", {"by": name, "n": int(count)}, actor=name))
        else:
            events = [log.append("event", {"by": name, "n": n}, actor=name) for n in range(int(count))]
        for event in events:
            _print(_place(event))
    finally:
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
