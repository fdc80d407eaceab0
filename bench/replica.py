"""`python -m bench.replica`: one Gatehouse replica for the replica figure (bench/figures/replicas.py).

A replica is a process that opens the services the web app opens (``open_services``: the
graph, the review service, the ledger, the audit log, one long-lived session per MCP server)
on the shared PostgreSQL database, and runs the three things a team's browsers ask of it on
those services, each on its own thread as Streamlit runs a session's script:

    POST /ask     {"text": ...}                       -> {"status", "review", "thread"}
    GET  /queue                                       -> {"pending": N}
    POST /decide  {"review", "reviewer", "approve"}   -> {"outcome": "won" | "already_decided", "status"}

Why not the Streamlit app itself: its pages call exactly these service methods, and driving
them through a browser (or AppTest) would add rendering CPU that every replica pays the same,
on a two-core machine where CPU is what there is least of. The database contention the figure
is about (row locks on the ledger, the audit chain's head, the checkpointer) is all here.

Settings come from the environment (GATEHOUSE_DB, GATEHOUSE_DATA, GATEHOUSE_SERVERS) as a
replica's would. The first stdout line is ``READY <port>`` once the services are open; every
failure is answered as HTTP 500 with its type and message, never swallowed.
"""

from __future__ import annotations

import json
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from gatehouse.settings import Settings
from gatehouse.wiring import Services, open_services
from reviews.errors import AlreadyDecidedError

REQUESTER = "operator"
# Connections waiting to be accepted. http.server's default is 5: with 32 load-generator
# clients opening their keep-alive connections at once, the rest overflowed the queue and were
# reset (12 errors in figure 8 on 16 cores). The kernel caps it at net.core.somaxconn.
LISTEN_BACKLOG = 1024


class ReplicaServer(ThreadingHTTPServer):
    """The replica's HTTP server: a thread per connection, a listen queue for every client."""

    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True


def handle(services: Services, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """Run one request on the services; raise on anything the load generator must count as an error."""
    if path == "/ask":
        outcome = services.requests.ask(str(body["text"]), requester=REQUESTER)
        review = outcome.final_output.review
        return {
            "status": outcome.final_output.status,
            "review": review.id if review else None,
            "thread": outcome.final_output.thread_id,
        }
    if path == "/queue":
        return {"pending": len(services.reviews.queue("pending"))}
    if path == "/decide":
        try:
            result = services.reviews.decide(
                str(body["review"]), reviewer=str(body["reviewer"]), approve=bool(body["approve"])
            )
        except AlreadyDecidedError as exc:
            # Another replica won the race: the outcome the figure counts, not an error.
            return {"outcome": "already_decided", "by": exc.by}
        status = result.run.final_output.status if result.run else None
        return {"outcome": "won", "status": status}
    raise LookupError(f"no such path {path!r}; the paths are /ask, /queue and /decide")


def make_handler(services: Services) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # Keep-alive: one connection (so one server thread) per load-generator client.
        protocol_version = "HTTP/1.1"
        # The headers and the body go out in two writes. With Nagle's algorithm on, the body
        # waits for the client's delayed ACK of the headers: 40 ms on every response, which
        # idled the replicas the figure means to load. Streamlit's server (tornado) sets
        # TCP_NODELAY too.
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _body(self) -> dict[str, Any]:
            # Read whatever body came, on GET too: left unread on a keep-alive connection it
            # would be taken for the start of the next request.
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not isinstance(body, dict):
                raise TypeError(f"the request body must be a JSON object, got {type(body).__name__}")
            return body

        def _serve(self) -> None:
            try:
                answer, code = handle(services, self.path, self._body()), HTTPStatus.OK
            except Exception as exc:  # noqa: BLE001 - answered, and counted as an error by the load generator
                answer, code = {"error": f"{type(exc).__name__}: {exc}"}, HTTPStatus.INTERNAL_SERVER_ERROR
            data = json.dumps(answer).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: a line per request on stderr would cost the replica CPU the figure measures."""

    return Handler


def main() -> int:
    with open_services(Settings.resolve()) as services:
        server = ReplicaServer(("127.0.0.1", 0), make_handler(services))
        sys.stdout.write(f"READY {server.server_address[1]}\n")
        sys.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
