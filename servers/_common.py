"""Shared plumbing for the bundled demo servers: where data lives, how to seed it, how to run over stdio."""

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from mcp.server.mcpserver import MCPServer

from gatehouse_verify.grant import GrantError
from gatehouse_verify.keys import KEYS_ENV, KEYS_FILE_ENV, PublicKeys, keys_from_environment

DATA_ENV_VAR = "GATEHOUSE_DATA"
DEMO_SUBFOLDER = "demo"
SERVER_VERSION = "0.1.0"


def default_data_dir() -> Path:
    """The demo data folder: $GATEHOUSE_DATA (or ./data) plus the "demo" subfolder."""
    return Path(os.environ.get(DATA_ENV_VAR) or "data") / DEMO_SUBFOLDER


def parse_data_dir(argv: Sequence[str] | None = None, *, description: str = "") -> Path:
    """Read `--data-dir PATH` from the command line, falling back to `default_data_dir()`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help=f"folder for the demo data (default: ${DATA_ENV_VAR} or ./data, plus /{DEMO_SUBFOLDER})",
    )
    args = parser.parse_args(argv)
    data_dir: Path | None = args.data_dir
    return data_dir if data_dir is not None else default_data_dir()


def run_stdio(
    build_server: Callable[[Path], MCPServer],
    argv: Sequence[str] | None = None,
    *,
    description: str = "",
) -> None:
    """Parse the command line, build the server and serve it over stdin/stdout until the client hangs up."""
    data_dir = parse_data_dir(argv, description=description)
    build_server(data_dir).run("stdio")


def seed_text_file(path: Path, content: str) -> bool:
    """Write `content` to `path` only if the file does not exist yet; return whether it was written.

    Exclusive creation ("x") rather than an exists() check, so two servers starting at once
    cannot both seed, and a file the user has since edited is never replaced.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with path.open("x", encoding="utf-8", newline="\n") as handle:
            handle.write(content)
    except FileExistsError:
        return False
    return True


def approval_keys(server: str) -> PublicKeys | None:
    """The Gatehouse public keys this server process is configured with (gatehouse_verify/keys.py),
    or None. Gatehouse's servers file sets them for every bundled server it starts; a bundled
    server started by hand without them verifies nothing (a demo run with another client) and
    says so on stderr, where its log is. A key that cannot be read stops the server: it never
    runs unverified by mistake.
    """
    try:
        keys = keys_from_environment()
    except GrantError as exc:
        raise SystemExit(f"{server}: {exc}") from None
    if keys is None:
        print(
            f"{server}: neither {KEYS_ENV} nor {KEYS_FILE_ENV} is set: side-effecting tools run"
            " without a Gatehouse approval (set one to refuse calls nobody approved)",
            file=sys.stderr,
            flush=True,
        )
    return keys
