"""`gatehouse servers key`: the public keys verifying servers are configured with, a rotation
that keeps the replaced key accepted, and retiring it; the private key is never printed."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

from gatehouse.approval_keys import public_keys_path, signing_key_path
from tests.cli_support import run_cli


def keys(data: Path, *args: str) -> dict[str, Any]:
    done = run_cli("servers", "key", "--json", *args, env={"GATEHOUSE_DATA": str(data), "GATEHOUSE_DB": None})
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def test_the_first_run_makes_a_key_prints_only_its_public_half_and_keeps_the_private_one_to_its_owner(
    tmp_path: Path,
) -> None:
    report = keys(tmp_path)
    text = run_cli("servers", "key", env={"GATEHOUSE_DATA": str(tmp_path), "GATEHOUSE_DB": None}).stdout

    (key,) = report["keys"]
    assert key["state"] == "current" and key["public_key"].startswith("ed25519:")
    private = json.loads(signing_key_path(tmp_path).read_text(encoding="utf-8"))["current"]["private_key"]
    assert private not in json.dumps(report) and private not in text
    assert key["public_key"] in text
    assert stat.S_IMODE(signing_key_path(tmp_path).stat().st_mode) == 0o600
    assert key["public_key"] in public_keys_path(tmp_path).read_text(encoding="utf-8")
    assert report["meta_key"] == "io.gatehouse/approval"


def test_a_rotation_publishes_the_new_key_beside_the_old_until_the_old_is_retired(tmp_path: Path) -> None:
    (first,) = keys(tmp_path)["keys"]

    rotated = keys(tmp_path, "--rotate")["keys"]
    retired = keys(tmp_path, "--retire")["keys"]

    assert [k["state"] for k in rotated] == ["current", "previous"]
    assert rotated[1]["public_key"] == first["public_key"] != rotated[0]["public_key"]
    assert [k["public_key"] for k in retired] == [rotated[0]["public_key"]]
    assert first["public_key"] not in public_keys_path(tmp_path).read_text(encoding="utf-8")
