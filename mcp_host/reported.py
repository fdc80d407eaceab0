"""Gatehouse's errors, in one tree: the bases every package derives its exceptions from, and
where each exception lives.

The bases are defined here; the concrete classes stay beside the code that raises them (a
review's refusal in reviews/, a servers file's mistake in mcp_host/), each deriving from its
family below. This module imports nothing of Gatehouse's, so every layer (mcp_host/ and storage/ at the
bottom, policies/, graph/, reviews/, gatehouse/, eval/, servers/) derives from it without an
import that points up the layers. tests/mcp_host/test_error_tree.py checks that every
exception the product packages define descends from GatehouseError and is drawn here, under a
base it has: an exception that is not placed fails the tests.

``ReportedError`` is what a person reads: its message is the line to show (what was wrong and
where) and ``exit_code`` what a command exits with, as click's ClickException carries both.
An error that names several mistakes at once (every broken entry of a servers file none of
whose entries loads, every mistake of one servers file entry, every bad value of a policy
file) has one line each in ``lines``; ``FileMistakesError`` is the one shape both files' errors
share (where and reason of each mistake), so neither stops at its first.
The command line turns any of them into those lines and that code without knowing the class
(gatehouse/cli/commands.py); the app shows the message. The other families are caught and
handled inside Gatehouse (a server's failure becomes an ``ErrorInfo`` the graph routes on, a
value that does not parse is refused where it is read), and reach a person only as words.

A class with two bases is drawn under one and names the other (``also ...``). Catching a family
catches every class drawn under it; a family added here is caught nowhere until a handler
names it, so placing an exception changes no existing ``except``.

    GatehouseError                                 every exception Gatehouse defines
    ├── ReportedError                              for a person: the message and exit_code (2 unless set)
    │   ├── UsageError                             configuration or input to fix: a file, an option, a variable
    │   │   ├── ConfigurationError                 gatehouse/errors.py
    │   │   ├── FileMistakesError                  a file's mistakes, each its key and reason: one line each
    │   │   │   ├── ConfigError                    mcp_host/config.py (also McpHostError)
    │   │   │   │   ├── SecretReferenceError       mcp_host/config.py
    │   │   │   │   └── NoUsableServersError       mcp_host/config.py
    │   │   │   └── PolicyError                    policies/loader.py
    │   │   ├── VariableError                      mcp_host/variables.py
    │   │   │   ├── UnsetVariableError             mcp_host/variables.py
    │   │   │   └── SecretVariableError            mcp_host/variables.py
    │   │   ├── AuditKeyError                      reviews/audit_keys.py
    │   │   ├── CredentialKeyError                 gatehouse/credentials/server_credentials.py (also RuntimeError)
    │   │   ├── BoundsError                        policies/grant_bounds.py (also ValueError)
    │   │   ├── UnknownTokenError                  gatehouse/credentials/access_tokens.py
    │   │   ├── CasesFileError                     eval/cases.py (also ValueError)
    │   │   └── TelemetryConfigError               telemetry/setup.py (also ValueError)
    │   ├── RefusalError                           the policy, or the state of a thread or a review, does not allow it
    │   │   ├── NotAllowedError                    reviews/errors.py
    │   │   ├── ThreadBusyError                    reviews/errors.py
    │   │   ├── ThreadNotFoundError                reviews/errors.py
    │   │   │   └── AmbiguousThreadIdError         reviews/errors.py
    │   │   ├── ResumeRefusedError                 graph/context.py
    │   │   ├── CallerRefusedError                 gatehouse/langgraph_auth.py
    │   │   ├── ReviewError                        reviews/errors.py: every refusal by the review service
    │   │   │   ├── NothingToResumeError           reviews/errors.py
    │   │   │   ├── DecisionNotAllowedError        reviews/errors.py
    │   │   │   ├── ReviewNotFoundError            reviews/errors.py
    │   │   │   │   └── AmbiguousReviewIdError     reviews/errors.py
    │   │   │   ├── NotPermittedError              reviews/errors.py
    │   │   │   ├── ReviewExpiredError             reviews/service.py
    │   │   │   ├── GrantNotFoundError             reviews/grant_service.py
    │   │   │   ├── SuggestionError                reviews/suggestions.py
    │   │   │   ├── QuestionError                  reviews/questions.py
    │   │   │   │   ├── QuestionNotFoundError      reviews/questions.py
    │   │   │   │   └── QuestionClosedError        reviews/questions.py (also ConflictError)
    │   │   │   └── PolicyChangeError              reviews/policy_changes.py
    │   │   │       ├── PolicyChangeNotFoundError  reviews/policy_changes.py
    │   │   │       └── PolicyChangeClosedError    reviews/policy_changes.py (also ConflictError; exit 3)
    │   │   └── ConflictError                      someone else acted first, or it is closed already
    │   │       └── AlreadyDecidedError            reviews/errors.py (also ReviewError; exit 3)
    │   └── StorageError                           the database or the audit chain cannot be used as it is
    │       ├── AnchorError                        reviews/audit_anchor.py
    │       └── AuditHeadMissingError              reviews/audit_append.py
    ├── ServerError                                an MCP server, its transport or the bundled servers' launcher
    │   ├── McpHostError                           the MCP side misused or misbehaving (mcp_host/errors.py re-exports it)
    │   │   ├── UnknownServerError                 mcp_host/errors.py
    │   │   ├── ClientClosedError                  mcp_host/errors.py
    │   │   ├── PaginationError                    mcp_host/errors.py
    │   │   ├── MessageTooLargeError               mcp_host/errors.py
    │   │   ├── RequestNotSentError                mcp_host/errors.py
    │   │   └── OAuthConfigError                   mcp_host/oauth_config.py
    │   └── PreforkError                           servers/prefork.py
    ├── SignInError                                a sign-in that cannot go on: to a server, or a person's to the app
    │   ├── SignInRequired                         mcp_host/oauth.py
    │   ├── SignInListenerError                    mcp_host/oauth_loopback.py (also RuntimeError)
    │   └── SignInRefused                          gatehouse/credentials/oidc_identity.py
    ├── InvalidValueError                          a value that does not parse or fit, refused where it is read
    │   ├── BoundedJsonError                       mcp_host/bounded_json.py (also ValueError)
    │   ├── NotesError                             mcp_host/capability_notes.py (also ValueError)
    │   ├── UnsupportedFormError                   mcp_host/elicitation.py (also ValueError)
    │   ├── AddressError                           policies/web_address.py (also ValueError)
    │   ├── NarrowingError                         policies/narrowing.py (also ValueError)
    │   ├── SealError                              reviews/sealing.py (also ValueError)
    │   ├── ArgumentError                          gatehouse/web/argument_form.py (also ValueError)
    │   ├── UnknownCapabilityError                 gatehouse/display/policy_report.py (also LookupError)
    │   └── _Coercion                              graph/planner/arguments.py (also ValueError)
    ├── UnavailableError                           something optional is not at hand or did not answer: the caller falls back
    │   ├── ModelFailure                           graph/planner/model_calls.py
    │   ├── SimilarityUnavailableError             graph/planner/similarity.py (also RuntimeError)
    │   ├── DeliveryError                          gatehouse/notifications/webhook.py
    │   ├── IssuerUnavailableError                 gatehouse/gateway/issuer_keys.py
    │   ├── _Timeout                               gatehouse/cli/terminal_questions.py
    │   └── PeersMissingError                      eval/workspace.py (also RuntimeError)
    └── InternalError                              a bug or a misuse of Gatehouse's own code: never expected
        ├── ImpossibleStateError                   graph/routing.py (also RuntimeError)
        └── CaughtWriteError                       storage/transactions.py (also RuntimeError)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Self

# Bad usage or configuration: an option, a file, a variable, a request the policy or the
# review's state does not allow.
EXIT_USAGE = 2
# The review was already decided by someone else.
EXIT_ALREADY_DECIDED = 3


class GatehouseError(Exception):
    """The root of every exception Gatehouse defines (the tree above)."""


class ReportedError(GatehouseError):
    """An error whose message is meant for the person who ran the command (never a bug).

    Subclasses set ``exit_code`` as a class attribute; the default is bad usage or
    configuration."""

    exit_code: int = EXIT_USAGE

    @property
    def message(self) -> str:
        return str(self)

    @property
    def lines(self) -> list[str]:
        """The message as a terminal shows it, one line a mistake: the first says what is
        wrong, any others each name one more mistake of the same input. One line unless a
        subclass names several (a line break inside a mistake's words never starts another)."""
        return [self.message]


class UsageError(ReportedError):
    """Configuration or input to fix: the message names the file, option or variable, and why."""


class FileMistakesError(UsageError):
    """Mistakes in a file a person wrote (the servers file, the policy file): ``where`` is the
    file and key of the first, ``reason`` says what is wrong there; ``more`` holds the other
    mistakes found in the same reading, each (where, reason), so that fixing one does not only
    uncover the next. One line each in ``lines``."""

    def __init__(self, where: str, reason: str, more: Sequence[tuple[str, str]] = ()) -> None:
        self.where = where
        self.reason = reason
        self.more = list(more)
        super().__init__("\n".join(self.lines))

    @property
    def lines(self) -> list[str]:
        return [f"{self.where}: {self.reason}", *(f"{where}: {reason}" for where, reason in self.more)]

    @classmethod
    def of_all(cls, found: Iterable[tuple[str, str]]) -> Self:
        """One error naming every mistake ``found`` (at least one), each (where, reason) once,
        in the order found: the first as the error's own."""
        (where, reason), *more = dict.fromkeys(found)
        return cls(where, reason, more)


class RefusalError(ReportedError):
    """The policy, or the state of a thread or a review, does not allow what was asked."""


class ConflictError(RefusalError):
    """Someone else acted first, or what was acted on is closed already."""


class StorageError(ReportedError):
    """The database or the audit chain cannot be used as it is (deleted rows, a bad anchor)."""


class ServerError(GatehouseError):
    """An MCP server, its transport, or the launcher of the bundled servers failed or was misused."""


class McpHostError(ServerError):
    """Base of the errors the MCP side raises for misuse (unknown server, closed client) and for
    a server's misbehaviour it refuses (a listing that never ends, a message over the cap)."""


class SignInError(GatehouseError):
    """A sign-in that cannot go on: a server needs a person, the loopback listener failed, or
    the identity provider's answer names nobody."""


class InvalidValueError(GatehouseError):
    """A value that does not parse or fit, refused where it is read (a caller turns it into a
    flag, a form's message or a fallback)."""


class UnavailableError(GatehouseError):
    """Something optional is not at hand or did not answer (a model, a receiver, a peer, a
    person at a terminal): the caller falls back or tries again."""


class InternalError(GatehouseError):
    """A bug, or a misuse of Gatehouse's own code: never expected in a run."""
