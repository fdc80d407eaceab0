"""What is running, read from /proc: for tests that check which processes a server start left."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from servers.prefork import socket_name


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    parent: int
    state: str  # "Z" for a zombie
    command: list[str]


def processes() -> Iterator[ProcessInfo]:
    """Every process we can see (those that end while we look are skipped)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat.rsplit(")", 1)[1].split()
        command = [part.decode(errors="replace") for part in cmdline if part]
        yield ProcessInfo(int(entry.name), int(fields[1]), fields[0], command)


def live_children(pid: int) -> list[int]:
    return [p.pid for p in processes() if p.parent == pid and p.state != "Z"]


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def prefork_pids(demo_data: Path) -> list[int]:
    """The prefork process serving the bundled servers of this demo data folder (see
    servers/prefork.py): one, or none. Its servers are forks of it, with the same command
    line, so it is the matching process whose parent is not one of them."""
    name = socket_name(str(demo_data)).lstrip("\0")
    matching = {
        p.pid: p.parent
        for p in processes()
        if p.state != "Z" and "servers.prefork" in p.command and name in p.command
    }
    return [pid for pid, parent in matching.items() if parent not in matching]
