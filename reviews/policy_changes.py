"""Changes to the policy made from the app or the command line: one mechanism for all of them.

An admin (a role with ``manage_policy``) proposes the policy's whole new text with a reason;
it is checked as `gatehouse policy check` checks a file, and kept with the version it was
written against. Another admin (four-eyes, unless ``[policy_changes] four_eyes = false``)
sees the diff and approves or rejects it. Approving applies it: in one transaction the
change, a new version in ``policy_versions`` (policies/versions.py) and the audit event;
every replica adopts the new version within seconds (policies/live.py). A change written
against a version that is no longer current is never applied over the newer one: it is
superseded, and its author proposes again on the current text.

After the transaction, the configured policy file is rewritten with the applied text when
it still holds the version the change was written against, so the file and the database
agree; a file edited meanwhile is left as it is (the report says so), and the shipped
default is never rewritten.
"""

from __future__ import annotations

import difflib
import logging
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from mcp_host.reported import EXIT_ALREADY_DECIDED, ConflictError
from policies.engine import PolicyEngine
from policies.live import ParsePolicy
from policies.loader import PolicyError, read_policy_text
from policies.model import PolicyFile
from policies.versions import (
    CHANGE_SOURCE,
    PolicyVersion,
    PolicyVersions,
    Reconciliation,
    file_source,
    policy_digest,
)
from reviews.audit import AuditLog
from reviews.clock import Clock, iso, utc_now
from reviews.errors import NotPermittedError, ReviewError
from storage.database import Connection, migrate
from storage.transactions import one_transaction

_log = logging.getLogger(__name__)

ChangeStatus = Literal["pending", "applied", "rejected", "withdrawn", "superseded"]
# A policy is a few hundred lines; this bounds what one proposal can put in the database.
MAX_POLICY_BYTES = 256 * 1024

_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE IF NOT EXISTS policy_changes (
        id TEXT PRIMARY KEY,
        proposed_by TEXT NOT NULL,
        proposed_at TEXT NOT NULL,
        reason TEXT NOT NULL,
        base_seq INTEGER NOT NULL,
        base_hash TEXT NOT NULL,
        text TEXT NOT NULL,
        hash TEXT NOT NULL,
        status TEXT NOT NULL,
        decided_by TEXT,
        decided_at TEXT,
        decision_reason TEXT,
        applied_seq INTEGER)""",
        "CREATE INDEX IF NOT EXISTS policy_changes_by_status ON policy_changes (status, proposed_at)",
    ),
)


class PolicyChangeError(ReviewError):
    """A change that cannot be proposed or decided as asked (exit 2)."""


class PolicyChangeNotFoundError(PolicyChangeError):
    pass


class PolicyChangeClosedError(PolicyChangeError, ConflictError):
    """Decided already, withdrawn or superseded (exit 3, like a review decided first)."""

    exit_code = EXIT_ALREADY_DECIDED


class PolicyChange(BaseModel):
    id: str
    proposed_by: str
    proposed_at: str
    reason: str
    # The version it was written against, and its digest.
    base_seq: int
    base_hash: str
    text: str
    hash: str
    status: ChangeStatus
    decided_by: str | None = None
    decided_at: str | None = None
    decision_reason: str | None = None
    # The version it became, once applied.
    applied_seq: int | None = None


@dataclass(frozen=True)
class Applied:
    change: PolicyChange
    version: PolicyVersion
    # Other pending changes written against the same version: they can no longer apply.
    superseded: list[str]
    # What became of the policy file: written, or why not.
    file_note: str


def _closed(change: PolicyChange) -> PolicyChangeClosedError:
    if change.status == "pending":  # pragma: no cover - callers check
        raise ValueError("the change is pending")
    words = {
        "applied": "was already applied",
        "rejected": "was already rejected",
        "withdrawn": "was withdrawn",
        "superseded": "was superseded",
    }[change.status]
    by = f" by {change.decided_by}" if change.decided_by and change.status != "superseded" else ""
    at = f" at {change.decided_at}" if change.decided_at else ""
    why = f" ({change.decision_reason})" if change.decision_reason else ""
    return PolicyChangeClosedError(f"policy change {change.id} {words}{by}{at}{why}")


def unified_diff(old: str, new: str, *, old_name: str, new_name: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=old_name, tofile=new_name
        )
    )


def _change_diff(base_text: str, change: PolicyChange) -> str:
    return unified_diff(
        base_text,
        change.text,
        old_name=f"policy version {change.base_seq}",
        new_name=f"policy change {change.id}",
    )


def _write_atomically(path: Path, text: str) -> None:
    """Write beside the file and rename over it: a reader sees the old text or the new, never half."""
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        Path(temporary).chmod(mode)
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class PolicyChanges:
    """Propose, list, approve, reject and withdraw changes to the policy; and which version a
    process starting on a file runs on (start_on_file)."""

    def __init__(
        self,
        versions: PolicyVersions,
        audit: AuditLog,
        engine: PolicyEngine,
        parse: ParsePolicy,
        *,
        policy_file: Path | None,
        clock: Clock = utc_now,
    ) -> None:
        """``policy_file``: the file this process was configured with (None: the shipped
        default, which is never rewritten). ``parse`` checks a text as `policy check` does."""
        self.versions = versions
        self._audit = audit
        self._engine = engine
        self._parse = parse
        self._file = policy_file
        self._clock = clock
        self._db = versions.database
        migrate(self._db, "policy_changes", _MIGRATIONS)

    # -- reading -----------------------------------------------------------------------------

    def get(self, change_id: str) -> PolicyChange:
        with self._db.read() as conn:
            return self._get(conn, change_id, lock=False)

    def _get(self, conn: Connection, change_id: str, *, lock: bool) -> PolicyChange:
        rows = conn.execute(
            "SELECT * FROM policy_changes WHERE id = ?" + (self._db.dialect.lock_rows if lock else ""),
            (change_id.strip(),),
        ).fetchall()
        if not rows:
            raise PolicyChangeNotFoundError(
                f"no policy change has the id {change_id!r} (`gatehouse policy changes`)"
            )
        return PolicyChange.model_validate(dict(rows[0]))

    def changes(self, status: ChangeStatus | None = None, limit: int = 100) -> list[PolicyChange]:
        """Newest first; only ``status`` when given."""
        with self._db.read() as conn:
            if status is None:
                rows = conn.execute(
                    "SELECT * FROM policy_changes ORDER BY proposed_at DESC LIMIT ?", (limit,)
                ).fetchall()
            else:
                rows = conn.execute(
                    "SELECT * FROM policy_changes WHERE status = ? ORDER BY proposed_at DESC LIMIT ?",
                    (status, limit),
                ).fetchall()
        return [PolicyChange.model_validate(dict(row)) for row in rows]

    def current(self) -> PolicyVersion:
        version = self.versions.current()
        if version is None:  # pragma: no cover - start_on_file records one before anything runs
            raise PolicyChangeError("no policy version is recorded in this database yet")
        return version

    def diff(self, change: PolicyChange) -> str:
        """What the change does to the version it was written against."""
        base = self.versions.get(change.base_seq)
        return _change_diff(base.text if base is not None else "", change)

    # -- proposing ---------------------------------------------------------------------------

    def _require_manager(self, user: str, doing: str) -> None:
        if not self._engine.may_manage_policy(user):
            role = self._engine.role_of(user)
            who = f"{user} (role {role})" if role else f"{user} (not in the policy's roster)"
            raise NotPermittedError(
                f"{who} may not {doing}: only a role with manage_policy may ([roles.<name>] manage_policy = true)"
            )

    def check(self, text: str) -> PolicyFile:
        """``text`` checked as a policy, as `gatehouse policy check` checks a file; also that
        it leaves someone who may manage the policy (else no change could follow it)."""
        if len(text.encode("utf-8")) > MAX_POLICY_BYTES:
            raise PolicyChangeError(f"the proposed policy is over {MAX_POLICY_BYTES // 1024} KiB")
        policy = self._parse(text, "the proposed policy")
        if not any(
            role in policy.roles and policy.roles[role].manage_policy for role in policy.users.values()
        ):
            raise PolicyChangeError(
                "the proposed policy: nobody in [users] would have a role with manage_policy, so no "
                "change could be approved after it; keep at least one such person"
            )
        return policy

    def propose(self, text: str, *, by: str, reason: str, written_on: int | None = None) -> PolicyChange:
        """Keep ``text`` as a change to the current version, waiting for approval.

        ``written_on``: the version ``text`` was made from, when code made it (a rule added to
        the text in force). Another version applied since then would be undone by it, so it is
        refused rather than kept against the newer version.

        Raises:
            NotPermittedError: ``by`` may not manage the policy.
            PolicyError: the text is not a valid policy (names the key and the reason).
            PolicyChangeError: no reason given, the text changes nothing, or the policy is no
                longer version ``written_on``.
        """
        self._require_manager(by, "propose a change to the policy")
        if not reason.strip():
            raise PolicyChangeError("a policy change needs a reason: whoever approves it reads why")
        self.check(text)
        with one_transaction(self._db, self._audit.database) as conn:
            base = self.versions.lock_current(conn)
            if base is None:  # pragma: no cover - start_on_file records one first
                raise PolicyChangeError("no policy version is recorded in this database yet")
            if written_on is not None and base.seq != written_on:
                raise PolicyChangeError(
                    f"the policy changed meanwhile (it is version {base.seq} now, not {written_on}):"
                    " nothing was proposed; look again and propose on the current policy"
                )
            if policy_digest(text) == base.hash:
                raise PolicyChangeError("the proposed policy is the current one: it changes nothing")
            change = PolicyChange(
                id=secrets.token_hex(4),
                proposed_by=by,
                proposed_at=iso(self._clock()),
                reason=reason.strip(),
                base_seq=base.seq,
                base_hash=base.hash,
                text=text,
                hash=policy_digest(text),
                status="pending",
            )
            conn.execute(
                "INSERT INTO policy_changes (id, proposed_by, proposed_at, reason, base_seq, base_hash, text,"
                " hash, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    change.id,
                    change.proposed_by,
                    change.proposed_at,
                    change.reason,
                    change.base_seq,
                    change.base_hash,
                    change.text,
                    change.hash,
                    change.status,
                ),
            )
            self._audit.append(
                "policy_change_proposed",
                {
                    "change": change.id,
                    "reason": change.reason,
                    "base_version": base.seq,
                    "base_hash": base.hash,
                    "hash": change.hash,
                    "diff": unified_diff(
                        base.text,
                        text,
                        old_name=f"policy version {base.seq}",
                        new_name=f"policy change {change.id}",
                    ),
                },
                actor=by,
            )
        return change

    # -- deciding ----------------------------------------------------------------------------

    def approve(self, change_id: str, *, by: str) -> Applied:
        """Apply the change: a new current version on every replica.

        Raises:
            NotPermittedError: ``by`` may not manage the policy, or proposed it (four-eyes).
            PolicyChangeClosedError: decided, withdrawn or superseded already, or the policy
                changed since it was proposed (it is then superseded).
            PolicyError: the text does not check in this process (a variable it lacks).
        """
        self._require_manager(by, "approve a change to the policy")
        stale: PolicyChangeClosedError | None = None
        with one_transaction(self._db, self._audit.database) as conn:
            change = self._get(conn, change_id, lock=True)
            if change.status != "pending":
                raise _closed(change)
            if self._engine.policy.policy_changes.four_eyes and by == change.proposed_by:
                raise NotPermittedError(
                    f"{by} proposed policy change {change.id}: another admin approves it"
                    " ([policy_changes] four_eyes)"
                )
            current = self.versions.lock_current(conn)
            if current is None or current.seq != change.base_seq:
                now = current.seq if current is not None else 0
                reason = f"the policy changed since it was proposed (it is version {now} now, not {change.base_seq})"
                self._close(conn, change, "superseded", by=None, reason=reason)
                stale = PolicyChangeClosedError(
                    f"policy change {change.id} was superseded: {reason}; propose it again on the current policy"
                )
            else:
                self._parse(change.text, f"policy change {change.id}")
                version = self.versions.record(
                    conn, change.text, source=f"{CHANGE_SOURCE}{change.id}", by=by, change_id=change.id
                )
                decided = iso(self._clock())
                conn.execute(
                    "UPDATE policy_changes SET status = 'applied', decided_by = ?, decided_at = ?,"
                    " applied_seq = ? WHERE id = ?",
                    (by, decided, version.seq, change.id),
                )
                superseded = self._supersede_others(conn, change)
                self._audit.append(
                    "policy_change_applied",
                    {
                        "change": change.id,
                        "proposed_by": change.proposed_by,
                        "version": version.seq,
                        "hash": version.hash,
                        "base_version": change.base_seq,
                        "base_hash": change.base_hash,
                        "superseded": superseded,
                    },
                    actor=by,
                )
        if stale is not None:
            raise stale
        self._engine.refresh()
        applied = change.model_copy(
            update={"status": "applied", "decided_by": by, "decided_at": decided, "applied_seq": version.seq}
        )
        return Applied(applied, version, superseded, self._write_file(change, version))

    def _supersede_others(self, conn: Connection, applied: PolicyChange) -> list[str]:
        rows = conn.execute(
            "SELECT * FROM policy_changes WHERE status = 'pending' AND id <> ?", (applied.id,)
        ).fetchall()
        others = [PolicyChange.model_validate(dict(row)) for row in rows]
        for other in others:
            self._close(conn, other, "superseded", by=None, reason=f"change {applied.id} was applied first")
        return [other.id for other in others]

    def _close(
        self,
        conn: Connection,
        change: PolicyChange,
        status: ChangeStatus,
        *,
        by: str | None,
        reason: str | None,
    ) -> None:
        conn.execute(
            "UPDATE policy_changes SET status = ?, decided_by = ?, decided_at = ?, decision_reason = ? WHERE id = ?",
            (status, by, iso(self._clock()), reason, change.id),
        )
        self._audit.append(f"policy_change_{status}", {"change": change.id, "reason": reason}, actor=by)

    def reject(self, change_id: str, *, by: str, reason: str) -> PolicyChange:
        self._require_manager(by, "reject a change to the policy")
        if not reason.strip():
            raise PolicyChangeError("a rejection needs a reason the proposer can read")
        return self._end(change_id, "rejected", by=by, reason=reason.strip())

    def withdraw(self, change_id: str, *, by: str) -> PolicyChange:
        """The proposer takes their own change back."""
        change = self.get(change_id)
        if by != change.proposed_by:
            raise NotPermittedError(
                f"policy change {change.id} is {change.proposed_by}'s: only they withdraw it (others reject it)"
            )
        return self._end(change_id, "withdrawn", by=by, reason=None)

    def _end(self, change_id: str, status: ChangeStatus, *, by: str, reason: str | None) -> PolicyChange:
        with one_transaction(self._db, self._audit.database) as conn:
            change = self._get(conn, change_id, lock=True)
            if change.status != "pending":
                raise _closed(change)
            self._close(conn, change, status, by=by, reason=reason)
            return self._get(conn, change.id, lock=False)

    # -- the file ----------------------------------------------------------------------------

    def _write_file(self, change: PolicyChange, version: PolicyVersion) -> str:
        if self._file is None:
            return (
                "the shipped default policy file is never rewritten: the database holds the applied"
                " version (set GATEHOUSE_POLICY to a file of your own to keep the two together)"
            )
        try:
            on_disk = read_policy_text(self._file)
        except PolicyError as exc:
            return f"{exc.message}; the database holds the applied version"
        if policy_digest(on_disk) == version.hash:
            return f"{self._file} holds it already"
        if policy_digest(on_disk) != change.base_hash:
            return (
                f"{self._file} was not rewritten: it was edited since the change was proposed. The"
                " database holds the applied version; a process started on the edited file adopts"
                " the file's text instead (docs/policy-changes.md)"
            )
        try:
            _write_atomically(self._file, change.text)
        except OSError as exc:
            return f"{self._file} could not be rewritten ({exc.strerror or exc}); the database holds the applied version"
        with self._db.write() as conn:
            self.versions.remember_file(conn, file_source(str(self._file)), version.hash, version.seq)
        return f"{self._file} rewritten with it"


def start_on_file(
    versions: PolicyVersions, audit: AuditLog, text: str, path: str, *, actor: str | None = None
) -> Reconciliation:
    """Which version a process configured with the policy file ``path`` (holding ``text``)
    runs on (PolicyVersions.reconcile), with an audit event when the file becomes a new version."""
    source = file_source(path)
    with one_transaction(versions.database, audit.database) as conn:
        outcome = versions.reconcile(conn, text, source)
        if outcome.outcome == "adopted":
            data: dict[str, Any] = {
                "version": outcome.version.seq,
                "hash": outcome.version.hash,
                "source": source,
            }
            if outcome.replaced is not None:
                data["replaced_version"] = outcome.replaced.seq
                data["diff"] = unified_diff(
                    outcome.replaced.text,
                    text,
                    old_name=f"policy version {outcome.replaced.seq}",
                    new_name=path,
                )
            audit.append("policy_adopted_from_file", data, actor=actor)
    if outcome.outcome == "kept_newer":
        _log.warning(
            "the policy file %s is older than policy version %s (%s): running on the database's version",
            path,
            outcome.version.seq,
            outcome.version.origin,
        )
    return outcome
