"""Figure 6: memory. A read-only tool whose answer is 50 MB of text (bench/big_output_server.py).
What the graph's state keeps of it must stay under the policy's ``[output] max_bytes``; the
peak RSS growth of the Gatehouse process during that request is reported.

The request runs in a fresh child process (``python -m bench.figures.memory DATA_DIR``), so its
memory is not that of the figures run before it: the child opens the services, runs one small
read-only request (filesystem server) to load every code path, then resets its RSS high-water
mark (``5`` into /proc/self/clear_refs) and makes the big request. Peak growth is VmHWM after the
request less VmRSS before it. A second big request shows whether what stays after one is kept
once or accumulates; during a third, another thread sends small requests to the other server, to
show what the big one costs everyone else in the process: the longest of them less the longest of
20 of the same request alone is the delay, with a target. A stdio message over the pool's per-message
cap (mcp_host/results.py) is refused as it is read, so with the defaults the 50 MB answer ends the
big request with that error, and what is measured is what the refusal costs: memory and the
other server's wait. The JSON the child prints is what the parent reports."""

from __future__ import annotations

import ctypes
import gc
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bench.process_memory import reset_peak, vm_status
from bench.report import Figure, Target
from bench.workspace import READ_REQUEST, Workspace, stdio_entry
from gatehouse.settings import Settings
from gatehouse.wiring import Services, open_services, policy_file
from graph.runner import thread_config

SECTION = "6 memory"
MEGABYTES = 50
BIG_REQUEST = "Read the service log."
PROJECT_ROOT = Path(__file__).resolve().parents[2]
MB = 1_000_000
CHILD_TIMEOUT_S = 300
# Issue 17: a 50 MB answer from one server may delay a request to another by at most this.
STALL_TARGET_MS = 100.0


# -- in the child ------------------------------------------------------------------------------


def _children() -> list[int]:
    me = str(os.getpid())
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "stat").read_text().rsplit(")", 1)[1].split()[1] == me:
                    found.append(int(entry.name))
            except (OSError, IndexError):
                continue
    return found


def _server_peak(marker: str) -> int | None:
    """VmHWM of the child server process whose command line names ``marker``."""
    for pid in _children():
        try:
            if marker in (Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")):
                return vm_status(pid).get("VmHWM")
        except OSError:
            continue
    return None


def _json_bytes(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str).encode("utf-8"))


def _kept_output_bytes(result: dict[str, Any]) -> int:
    """Bytes of the tool's output the McpResult in the state carries (text and structured)."""
    text = sum(len((item.get("text") or "").encode("utf-8")) for item in result.get("content", []))
    structured = _json_bytes(result["structured"]) if result.get("structured") is not None else 0
    return text + structured


def _db_bytes(settings: Settings) -> int:
    paths = [settings.db_path, settings.db_path.with_name(settings.db_path.name + "-wal")]
    return sum(p.stat().st_size for p in paths if p.exists())


def _malloc_trim() -> bool:
    """Hand the C allocator's free heap memory back to the system (glibc); False when unavailable."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return False
    return True


class Probe:
    """Small read-only requests (another server, same pool) sent one after another from a thread
    while the big request runs: how long other users of the process wait meanwhile."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.latencies: list[float] = []
        self.statuses: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="probe")

    def _loop(self) -> None:
        while not self._stop.is_set():
            began = time.perf_counter()
            run = self.services.requests.ask(READ_REQUEST, requester="operator")
            self.latencies.append(time.perf_counter() - began)
            self.statuses.append(run.final_output.status)

    def __enter__(self) -> Probe:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()


def _big_request(services: Services, *, probe: bool = False) -> dict[str, Any]:
    """One big request with the high-water mark reset before it: RSS before, peak, after."""
    gc.collect()
    before = vm_status()
    reset = reset_peak()
    after_reset = vm_status()
    prober = Probe(services) if probe else None
    began = time.perf_counter()
    if prober is None:
        run = services.requests.ask(BIG_REQUEST, requester="operator")
    else:
        with prober:
            run = services.requests.ask(BIG_REQUEST, requester="operator")
    seconds = time.perf_counter() - began
    during = vm_status()
    measured: dict[str, Any] = {
        "thread_id": run.final_output.thread_id,
        "status": run.final_output.status,
        "pending_stage": run.pending["stage"] if run.pending else None,
        "response_start": run.final_output.response[:300],
        "seconds": seconds,
        "rss_before": before["VmRSS"],
        "hwm_before_reset": before["VmHWM"],
        "hwm_reset": reset and after_reset["VmHWM"] <= before["VmRSS"] + 4 * MB,
        "hwm_after": during["VmHWM"],
        "rss_after": during["VmRSS"],
        "server_hwm": _server_peak("bench.big_output_server"),
    }
    if prober is not None:
        measured["probe_latencies_s"] = [round(x, 4) for x in prober.latencies]
        measured["probe_statuses"] = sorted(set(prober.statuses))
    del run, prober
    gc.collect()
    measured["rss_after_gc"] = vm_status()["VmRSS"]
    measured["malloc_trim"] = _malloc_trim()
    measured["rss_after_trim"] = vm_status()["VmRSS"]
    return measured


def measure(data_dir: Path) -> dict[str, Any]:
    """Run in the child: one warm-up request, then the big one twice; what memory and state did."""
    settings = Settings(
        data_dir=data_dir, db_path=data_dir / "gatehouse.db", servers_path=data_dir / "servers.json"
    )
    with open_services(settings) as services:
        warm = services.requests.ask(READ_REQUEST, requester="operator")
        if warm.final_output.status != "ok":
            raise RuntimeError(f"the warm-up request did not succeed: {warm.final_output.response}")
        del warm
        db_before = _db_bytes(settings)
        first = _big_request(services)
        db_growth = _db_bytes(settings) - db_before
        values = dict(services.graph.get_state(thread_config(first["thread_id"])).values)
        fields = {key: _json_bytes(value) for key, value in values.items()}
        result = values.get("mcp_result") or {}
        kept = _kept_output_bytes(result)
        del values
        alone = []
        for _ in range(20):
            began = time.perf_counter()
            services.requests.ask(READ_REQUEST, requester="operator")
            alone.append(time.perf_counter() - began)
        second = _big_request(services)
        third = _big_request(services, probe=True)
    return first | {
        "state_fields": fields,
        "kept_output_bytes": kept,
        "original_bytes": result.get("original_bytes"),
        "truncated": result.get("truncated"),
        "db_growth": db_growth,
        "second": second,
        "third": third,
        "small_request_alone_s": sorted(alone)[len(alone) // 2],
        "small_request_alone_max_s": max(alone),
    }


# -- in the parent -----------------------------------------------------------------------------


def run(space: Workspace) -> list[Figure]:
    name = "memory"
    data = space.root / name
    big: dict[str, object] = {
        "command": sys.executable,
        "args": ["-m", "bench.big_output_server", "--megabytes", str(MEGABYTES)],
        "cwd": str(PROJECT_ROOT),
    }
    settings = space.settings({"big": big, "filesystem": stdio_entry("servers.filesystem", data)}, name=name)
    cap = policy_file(settings).output.max_bytes
    began = time.perf_counter()
    child = subprocess.run(
        [sys.executable, "-m", "bench.figures.memory", str(settings.data_dir)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT_S,
        check=False,
    )
    if child.returncode != 0:
        raise RuntimeError(f"the memory child failed ({child.returncode}):\n{child.stderr[-4000:]}")
    measured: dict[str, Any] = json.loads(child.stdout.strip().splitlines()[-1])
    measured["child_seconds"] = time.perf_counter() - began
    return figures(measured, cap)


def figures(m: dict[str, Any], cap: int) -> list[Figure]:
    fields: dict[str, int] = m["state_fields"]
    second: dict[str, Any] = m["second"]
    biggest = sorted(fields.items(), key=lambda kv: kv[1], reverse=True)[:4]
    peak = (m["hwm_after"] - m["rss_before"]) / MB
    if m["hwm_reset"]:
        peak_note = "VmHWM reset just before the request"
    elif m["hwm_after"] > m["hwm_before_reset"]:
        peak_note = "VmHWM could not be reset, but the request set a new peak"
    else:
        peak_note = (
            f"VmHWM could not be reset and the process had peaked higher before "
            f"({m['hwm_before_reset'] / MB:.0f} MB): an upper bound"
        )
    server = f"; the server's own peak RSS {m['server_hwm'] / MB:.0f} MB" if m["server_hwm"] else ""
    kept = (m["rss_after_gc"] - m["rss_before"]) / MB
    trim = (
        f"{(m['rss_after_trim'] - m['rss_before']) / MB:.0f} MB after malloc_trim(0)"
        if m["malloc_trim"]
        else "malloc_trim unavailable"
    )
    third: dict[str, Any] = m["third"]
    # RSS over the first request's start, after malloc_trim, at the end of each big request.
    kept_after = [(r["rss_after_trim"] - m["rss_before"]) / MB for r in (m, second, third)]
    step = kept_after[2] - kept_after[1]
    verdict = (
        "levels off: kept once, not accumulated"
        if step < max(0.2 * MEGABYTES, 5.0)
        else f"grew {step:+.0f} MB from the 2nd to the 3rd: may accumulate"
    )
    again = (
        "over the first's start after malloc_trim(0) at the end of 1, 2, 3 big requests: "
        + ", ".join(f"{k:+.0f}" for k in kept_after)
        + f" MB ({verdict}); each later one peaks "
        + "/".join(f"+{(r['hwm_after'] - r['rss_before']) / MB:.0f}" for r in (second, third))
        + " MB over its start"
    )
    probes: list[float] = third.get("probe_latencies_s", [])
    stalled = max(probes, default=0.0)
    alone = m["small_request_alone_s"]
    # The worst small request alone is the baseline: on a shared machine any 20 requests have
    # an outlier, and what the big one adds is the outlier it makes beyond that.
    alone_worst = m.get("small_request_alone_max_s", alone)
    summary = {k: v for k, v in m.items() if k != "state_fields"}
    return [
        Figure(
            SECTION,
            "tool output kept in the state",
            float(m["kept_output_bytes"]),
            "bytes",
            Target("<=", cap),
            f"mcp_result text of {m['original_bytes']} bytes returned (truncated: {m['truncated']}); "
            f"request ended {m['status']}{' (' + m['pending_stage'] + ')' if m['pending_stage'] else ''} "
            f"in {m['seconds']:.2f} s",
            summary,
        ),
        Figure(
            SECTION,
            "whole state, serialised",
            float(sum(fields.values())),
            "bytes",
            None,
            "largest fields: "
            + ", ".join(f"{k} {v}" for k, v in biggest)
            + f"; the database grew {m['db_growth']} bytes over the request's checkpoints",
            {"state_fields": fields},
        ),
        Figure(
            SECTION,
            "peak RSS growth during the request",
            peak,
            "MB",
            None,
            f"fresh child process, RSS {m['rss_before'] / MB:.0f} MB before; {peak_note}{server}",
        ),
        Figure(
            SECTION,
            "RSS kept after the request",
            kept,
            "MB",
            None,
            f"after gc.collect(); {trim}; {again}",
        ),
        Figure(
            SECTION,
            "longest delay of a small request on another server during the big one",
            max(stalled - alone_worst, 0.0) * 1000,
            "ms",
            Target("<=", STALL_TARGET_MS),
            f"the longest of {len(probes)} read-only requests to the filesystem server from another thread "
            f"during a third big request ({third['seconds']:.1f} s; statuses "
            f"{', '.join(third.get('probe_statuses', []))}; the big one ended {third['status']}) took "
            f"{stalled * 1000:.0f} ms against at most {alone_worst * 1000:.0f} ms (median {alone * 1000:.0f} ms)"
            " in 20 alone just before",
            {"probe_latencies_s": probes},
        ),
    ]


def main(argv: list[str]) -> None:
    print(json.dumps(measure(Path(argv[0]))), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
