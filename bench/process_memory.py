"""This process's memory as Linux reports it (/proc): for the figures that report RSS."""

from __future__ import annotations

from pathlib import Path


def vm_status(pid: int | str = "self") -> dict[str, int]:
    """The Vm* lines of /proc/<pid>/status (VmRSS, VmHWM, ...), in bytes."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key.startswith("Vm") and rest.strip().endswith("kB"):
            values[key] = int(rest.split()[0]) * 1024
    return values


def reset_peak() -> bool:
    """Reset this process's VmHWM to its current RSS (Linux 4.0+); False when not allowed."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True
