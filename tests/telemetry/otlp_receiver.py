"""A real OTLP/HTTP receiver on 127.0.0.1 for the wiring tests: one HTTP server thread that
decodes what exporters POST to /v1/traces and /v1/metrics (protobuf, opentelemetry-proto) and
keeps it, in arrival order."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass(frozen=True)
class ReceivedSpan:
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    start_ns: int
    end_ns: int
    scope: str
    service: str
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]
    # Which export it came in (the receiver counts them): tells one process's spans from another's.
    batch: int


@dataclass(frozen=True)
class ReceivedPoint:
    metric: str
    count: int
    attributes: dict[str, Any]


@dataclass
class Received:
    spans: list[ReceivedSpan] = field(default_factory=list)
    points: list[ReceivedPoint] = field(default_factory=list)
    batches: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    return getattr(value, kind) if kind is not None else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _traces(body: bytes, received: Received) -> bytes:
    request = ExportTraceServiceRequest.FromString(body)
    with received.lock:
        received.batches += 1
        for resource in request.resource_spans:
            service = str(_attributes(resource.resource.attributes).get("service.name"))
            for scope in resource.scope_spans:
                for span in scope.spans:
                    received.spans.append(
                        ReceivedSpan(
                            name=span.name,
                            kind=span.kind,
                            trace_id=span.trace_id.hex(),
                            span_id=span.span_id.hex(),
                            parent_span_id=span.parent_span_id.hex(),
                            start_ns=span.start_time_unix_nano,
                            end_ns=span.end_time_unix_nano,
                            scope=scope.scope.name,
                            service=service,
                            attributes=_attributes(span.attributes),
                            events=[(event.name, _attributes(event.attributes)) for event in span.events],
                            batch=received.batches,
                        )
                    )
    answer: bytes = ExportTraceServiceResponse().SerializeToString()
    return answer


def _metrics(body: bytes, received: Received) -> bytes:
    request = ExportMetricsServiceRequest.FromString(body)
    with received.lock:
        for resource in request.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.WhichOneof("data") != "histogram":
                        continue
                    for point in metric.histogram.data_points:
                        received.points.append(
                            ReceivedPoint(metric.name, point.count, _attributes(point.attributes))
                        )
    answer: bytes = ExportMetricsServiceResponse().SerializeToString()
    return answer


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, Received]]:
    """An OTLP/HTTP endpoint (its base URL, for OTEL_EXPORTER_OTLP_ENDPOINT) and what it got."""
    received = Received()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            decode = {"/v1/traces": _traces, "/v1/metrics": _metrics}.get(self.path)
            if decode is None:
                self.send_error(404)
                return
            answer = decode(body, received)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
