"""The data folder's signing key made on first use by many at once (the app's threads, a CLI
beside it, replicas on one folder): one key comes of it, every caller gets that one, and no
caller fails (each once wrote the same temporary file, and the first rename took it away)."""

from __future__ import annotations

import threading
from pathlib import Path

from gatehouse.approval_keys import load_signing_keys, public_keys_path, signing_key_path

CALLERS = 16


def test_callers_at_once_on_an_empty_folder_all_get_the_one_key_on_disk(tmp_path: Path) -> None:
    start = threading.Barrier(CALLERS)
    got: list[str] = []
    failed: list[Exception] = []

    def first_use() -> None:
        start.wait()
        try:
            got.append(load_signing_keys(tmp_path).published()[0].public_key)
        except Exception as exc:  # noqa: BLE001 - the subject: any failure is the defect
            failed.append(exc)

    threads = [threading.Thread(target=first_use) for _ in range(CALLERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert failed == []
    on_disk = load_signing_keys(tmp_path).published()[0].public_key
    assert set(got) == {on_disk}
    assert on_disk in public_keys_path(tmp_path).read_text(encoding="utf-8")
    assert signing_key_path(tmp_path).stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.rglob("*.tmp")] == []
