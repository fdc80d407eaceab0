"""Where Gatehouse keeps its data, from flags, then environment variables, then defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DATA_ENV = "GATEHOUSE_DATA"
DB_ENV = "GATEHOUSE_DB"
SERVERS_ENV = "GATEHOUSE_SERVERS"
POLICY_ENV = "GATEHOUSE_POLICY"
DEFAULT_DATA_DIR = Path("data")
DB_FILE_NAME = "gatehouse.db"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    db_path: Path
    # A servers file (mcpServers / servers JSON); None means the bundled demo servers.
    servers_path: Path | None = None
    # A policy file; None means the shipped policies/default.toml.
    policy_path: Path | None = None

    @property
    def demo_data_dir(self) -> Path:
        """Where the bundled demo servers keep their files (the managed folder, tickets, outbox)."""
        return self.data_dir / "demo"

    @property
    def server_log_dir(self) -> Path:
        """Where each stdio server's stderr goes, one file per server."""
        return self.data_dir / "logs" / "servers"

    @classmethod
    def resolve(
        cls,
        *,
        db: str | None = None,
        servers: str | None = None,
        policy: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Settings:
        env = os.environ if environ is None else environ
        data_dir = Path(env.get(DATA_ENV) or DEFAULT_DATA_DIR)
        db_path = Path(db or env.get(DB_ENV) or data_dir / DB_FILE_NAME)
        servers_file = servers or env.get(SERVERS_ENV)
        policy_file = policy or env.get(POLICY_ENV)
        return cls(
            data_dir=data_dir,
            db_path=db_path,
            servers_path=Path(servers_file) if servers_file else None,
            policy_path=Path(policy_file) if policy_file else None,
        )
