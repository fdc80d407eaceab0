"""What an audit row's hash covers, in the two forms rows have been written in.

Form 1, the rows written while the log was one chain (before the `audit` store's version 3):
``[prev_hash, seq, at, kind, thread_id, review_id, actor, data]``. Those rows are chain 1's
first rows, each at the link equal to its seq, so the form needs neither.

Form 2, every row since: ``["gatehouse audit v2", chain, link, seq, prev_hash, at, kind,
thread_id, review_id, actor, data]``. The chain and the link bind a row to its place in its
chain (a row moved to another chain, or to another place, no longer matches its hash) and the
seq to its place in the whole log's order, which the chains alone do not give. The tag keeps
the two forms apart.

Each form is hashed unkeyed (sha256, which anyone can recompute) or keyed (HMAC-SHA256 under
the key derived from GATEHOUSE_AUDIT_KEY, reviews/audit_keys.py).
"""

from __future__ import annotations

import hashlib
import json

from reviews.audit_keys import ChainKey

GENESIS = "0" * 64
# The two forms, as stored in audit_log.hash_format.
LEGACY_FORM = 1
CHAINED_FORM = 2
_CHAINED_TAG = "gatehouse audit v2"


def _json(values: list[object]) -> bytes:
    return json.dumps(values, separators=(",", ":")).encode("utf-8")


def legacy_material(prev_hash: str, seq: int, at: str, kind: str, thread_id: str | None,
                    review_id: str | None, actor: str | None, data: str) -> bytes:  # fmt: skip
    return _json([prev_hash, seq, at, kind, thread_id, review_id, actor, data])


def chained_material(chain: int, link: int, seq: int, prev_hash: str, at: str, kind: str,
                     thread_id: str | None, review_id: str | None, actor: str | None,
                     data: str) -> bytes:  # fmt: skip
    return _json([_CHAINED_TAG, chain, link, seq, prev_hash, at, kind, thread_id, review_id, actor, data])


def chained_material_tail(at: str, kind: str, thread_id: str | None, review_id: str | None,
                          actor: str | None, data: str) -> str:  # fmt: skip
    """chained_material after the prev_hash, which only the chain's head gives: PostgreSQL
    hashes ``'["gatehouse audit v2",<chain>,<link>,<seq>,"<prev_hash>",' || tail`` in the
    statement that locks the head (reviews/audit_append.py), the same bytes as above."""
    return json.dumps([at, kind, thread_id, review_id, actor, data], separators=(",", ":"))[1:]


CHAINED_PREFIX_SQL = f"'[\"{_CHAINED_TAG}\",'"


def event_hash(prev_hash: str, seq: int, at: str, kind: str, thread_id: str | None, review_id: str | None,
               actor: str | None, data: str) -> str:  # fmt: skip
    """Form 1, unkeyed: the hash of a row written while the log was one chain."""
    return hashlib.sha256(
        legacy_material(prev_hash, seq, at, kind, thread_id, review_id, actor, data)
    ).hexdigest()


def keyed_event_hash(key: ChainKey, prev_hash: str, seq: int, at: str, kind: str, thread_id: str | None,
                     review_id: str | None, actor: str | None, data: str) -> str:  # fmt: skip
    """Form 1, keyed: HMAC-SHA256 of event_hash's material under the chain key."""
    return key.digest(legacy_material(prev_hash, seq, at, kind, thread_id, review_id, actor, data))


def chained_hash(chain: int, link: int, seq: int, prev_hash: str, at: str, kind: str, thread_id: str | None,
                 review_id: str | None, actor: str | None, data: str, *, key: ChainKey | None = None) -> str:  # fmt: skip
    """Form 2: sha256 of its material, or with ``key`` its HMAC under the chain key (which
    only someone with GATEHOUSE_AUDIT_KEY, or the old key that made it, can recompute)."""
    material = chained_material(chain, link, seq, prev_hash, at, kind, thread_id, review_id, actor, data)
    return key.digest(material) if key is not None else hashlib.sha256(material).hexdigest()
