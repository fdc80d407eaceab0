"""`gatehouse servers key [--rotate | --retire]`: Gatehouse's public keys for approvals.

Servers that verify Gatehouse's grants (gatehouse_verify/) are configured with these: the key
that signs now and, during a rotation, the one it replaced, which servers keep accepting until
``--retire``. Only public keys are printed; the private key never leaves its file
(gatehouse/approval_keys.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gatehouse.approval_keys import (
    SigningKeys,
    load_signing_keys,
    public_keys_path,
    retire_previous_keys,
    rotate_signing_key,
)
from gatehouse_verify import META_KEY
from gatehouse_verify.keys import KEYS_ENV, KEYS_FILE_ENV


def key_report(data_dir: Path, *, rotate: bool = False, retire: bool = False) -> dict[str, Any]:
    """The public keys after the asked change (none, a rotation, or retiring replaced keys)."""
    keys: SigningKeys
    if rotate:
        keys = rotate_signing_key(data_dir)
    elif retire:
        keys = retire_previous_keys(data_dir)
    else:
        keys = load_signing_keys(data_dir)
    return {
        "keys": [
            {"key_id": key.key_id, "public_key": key.public_key, "state": key.state, "since": key.since}
            for key in keys.published()
        ],
        "public_keys_file": str(public_keys_path(data_dir)),
        "meta_key": META_KEY,
        "rotated": rotate,
        "retired": retire,
    }


def render_key(report: dict[str, Any]) -> str:
    lines = []
    if report["rotated"]:
        lines.append(
            "A new key signs from now on; servers keep accepting the one it replaced until --retire."
        )
    if report["retired"]:
        lines.append("Replaced keys retired: servers no longer accept grants they signed.")
    lines.append("Gatehouse's public keys for approvals (configure verifying servers with these):")
    for key in report["keys"]:
        when = "since" if key["state"] == "current" else "replaced"
        lines.append(
            f"  {key['public_key']}  {key['state']:<8}  key id {key['key_id']}  {when} {key['since']}"
        )
    lines.append(
        f"Servers read them from {KEYS_ENV} (the keys, comma-separated) or {KEYS_FILE_ENV}"
        f" (a file, read again when it changes; this Gatehouse keeps one at {report['public_keys_file']})."
    )
    lines.append(f"Grants travel in each side-effecting call's _meta under {report['meta_key']!r}.")
    return "\n".join(lines)
