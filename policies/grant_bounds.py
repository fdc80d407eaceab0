"""The bounds a remembered approval (a grant, reviews/grants.py) holds each argument to.

A reviewer approving one call may let the approval cover later calls of the same capability
whose arguments stay within bounds they state, one per argument:

- ``{"exact": VALUE}``: exactly this value (the same JSON: ``1`` is not ``"1"`` nor ``1.0``);
- ``{"domain": "example.com"}``: every address in a recipient argument is at this domain
  (case aside, and nothing else: ``evil-example.com`` and ``mail.example.com`` are not it; an
  address with a second "@", a "%" or a "!" before it is refused: they route elsewhere);
- ``{"under": "/srv/docs"}``: a path inside this folder (``..``, ``~``, backslashes and NUL are
  refused outright; a symlink that leads out is refused where the path can be resolved here);
- ``{"max": 100}`` (and/or ``"min"``): a number within these, inclusive; a number written as a
  string is refused (``"1e3"`` or ``" 5"`` may mean something else to the server);
- ``"any"``: whatever value.

Every argument of the approved call that the reviewer names no bound for is held to exactly
its approved value, and a later call with an argument the bounds do not name is outside: the
default is the narrowest grant, "exactly these arguments".
"""

from __future__ import annotations

import math
import os
import posixpath
from collections.abc import Mapping
from typing import Any

from mcp_host.reported import UsageError
from policies.constraints import canonical, path_text_problem, recipient_addresses

Bound = dict[str, Any] | str
Bounds = dict[str, Bound]
_KINDS = ("exact", "domain", "under", "max", "min")
_ROUTING = frozenset("@%!")


class BoundsError(UsageError, ValueError):
    """Bounds a grant cannot be made with (a message a reviewer can act on)."""


def _finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _one_bound(name: str, bound: Any) -> Bound:
    """One argument's bound as stored, checked (BoundsError says what is wrong)."""
    if bound == "any":
        return "any"
    if not isinstance(bound, dict) or not bound or set(bound) - set(_KINDS):
        raise BoundsError(
            f'argument {name}: a bound is "any" or an object with one of '
            f"{', '.join(_KINDS)} (max and min together), not {canonical(bound)}"
        )
    if "exact" in bound:
        if len(bound) != 1:
            raise BoundsError(f"argument {name}: exact goes alone")
        return {"exact": bound["exact"]}
    if "domain" in bound:
        domain = bound["domain"]
        if len(bound) != 1 or not isinstance(domain, str) or not domain.strip() or "@" in domain:
            raise BoundsError(f'argument {name}: domain is one domain name, such as "example.com"')
        return {"domain": domain.strip().lower()}
    if "under" in bound:
        folder = bound["under"]
        if len(bound) != 1 or not isinstance(folder, str) or not folder.strip():
            raise BoundsError(f'argument {name}: under is one folder, such as "/srv/docs"')
        problem = path_text_problem(folder)
        if problem is not None:
            raise BoundsError(f"argument {name}: the folder {folder!r} {problem}")
        return {"under": posixpath.normpath(folder)}
    limits = {kind: bound[kind] for kind in ("min", "max") if kind in bound}
    if not all(_finite_number(limit) for limit in limits.values()):
        raise BoundsError(f"argument {name}: min and max are finite numbers")
    if "min" in limits and "max" in limits and limits["min"] > limits["max"]:
        raise BoundsError(f"argument {name}: min is above max")
    return limits


def grant_bounds(approved: Mapping[str, Any], within: Mapping[str, Any] | None) -> Bounds:
    """The bounds of a grant made on an approval of ``approved``: the reviewer's ``within``,
    and exactly the approved value for every other argument.

    Raises:
        BoundsError: a bound is malformed, or the approved call itself is outside its bounds.
    """
    bounds: Bounds = {name: {"exact": value} for name, value in approved.items()}
    for name, bound in (within or {}).items():
        bounds[str(name)] = _one_bound(str(name), bound)
    why = outside(approved, bounds)
    if why is not None:
        raise BoundsError(f"the approved call itself is outside these bounds: {why}")
    return bounds


def _under(path: str, folder: str) -> bool:
    if (path.startswith("/")) != (folder.startswith("/")):
        return False  # one absolute and one relative: no common ground to compare on
    normal = posixpath.normpath(path)
    if normal != folder and not normal.startswith(folder.rstrip("/") + "/"):
        return False
    if folder.startswith("/") and os.path.lexists(folder):
        # Where the folder is on this machine (a local server's), a symlink inside it that
        # leads out is out: compare where both really lead.
        real_folder = os.path.realpath(folder)
        real = os.path.realpath(normal)
        return real == real_folder or real.startswith(real_folder.rstrip(os.sep) + os.sep)
    return True


def _outside_domain(name: str, value: Any, domain: str) -> str | None:
    addresses = recipient_addresses(value)
    if not addresses:
        return f"argument {name} holds no address"
    for address in addresses:
        local, at, at_domain = address.rpartition("@")
        # One "@" only, and none of the old relaying marks ("%", "!") that route a message
        # through the named domain to another.
        routed = set(local) & _ROUTING
        if not at or not local or routed or at_domain.lower() != domain:
            return f"argument {name}: {address!r} is not at {domain}"
    return None


def _outside_folder(name: str, value: Any, folder: str) -> str | None:
    paths = value if isinstance(value, list) else [value]
    if not paths:
        return f"argument {name} names no path"
    for path in paths:
        if not isinstance(path, str):
            return f"argument {name} is not a path"
        problem = path_text_problem(path)
        if problem is not None:
            return f"argument {name}: {path!r} {problem}"
        if not _under(path, folder):
            return f"argument {name}: {path!r} is not under {folder}"
    return None


def _outside_range(name: str, value: Any, bound: dict[str, Any]) -> str | None:
    if not _finite_number(value):
        return f"argument {name} is not a number (a number written as text is not taken)"
    if "max" in bound and value > bound["max"]:
        return f"argument {name}: {value} is above {bound['max']}"
    if "min" in bound and value < bound["min"]:
        return f"argument {name}: {value} is below {bound['min']}"
    return None


def _outside_bound(name: str, value: Any, bound: Bound) -> str | None:
    if bound == "any" or not isinstance(bound, dict):
        return None
    if "exact" in bound:
        return (
            None
            if canonical(value) == canonical(bound["exact"])
            else f"argument {name} is not the approved value"
        )
    if "domain" in bound:
        return _outside_domain(name, value, bound["domain"])
    if "under" in bound:
        return _outside_folder(name, value, bound["under"])
    return _outside_range(name, value, bound)


def outside(arguments: Mapping[str, Any], bounds: Bounds) -> str | None:
    """Why a call's arguments are outside a grant's bounds, or None when they are within.

    An argument the bounds do not name is outside; an argument they bound by exact value must
    be there with that value; one bound otherwise may be left out (an optional recipient).
    """
    extra = sorted(set(arguments) - set(bounds))
    if extra:
        return f"argument {', '.join(extra)} is not among those the grant bounds"
    for name, bound in bounds.items():
        if name not in arguments:
            if isinstance(bound, dict) and "exact" in bound:
                return f"argument {name} is missing"
            continue
        why = _outside_bound(name, arguments[name], bound)
        if why is not None:
            return why
    return None


def describe(bounds: Bounds) -> str:
    """The bounds in a line, for lists and the audit log."""
    parts = []
    for name, bound in sorted(bounds.items()):
        if bound == "any" or not isinstance(bound, dict):
            parts.append(f"{name}: any")
        elif "exact" in bound:
            parts.append(f"{name} = {canonical(bound['exact'])}")
        elif "domain" in bound:
            parts.append(f"{name} at {bound['domain']}")
        elif "under" in bound:
            parts.append(f"{name} under {bound['under']}")
        else:
            low, high = bound.get("min"), bound.get("max")
            parts.append(
                f"{name} in {low if low is not None else '-inf'}..{high if high is not None else 'inf'}"
            )
    return "; ".join(parts) or "no arguments"
