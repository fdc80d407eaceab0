"""A throwaway Gatehouse for the selection benchmark: the five third-party peer servers and the
bundled demo servers in one servers file (mcpServers format), each on seeded data of its own, a
temporary database and the shipped policy.

Names in the servers file: the bundled servers keep theirs (filesystem, tickets, email, greeter,
prompts, documents); the peers are ``files`` (server-filesystem), ``everything``, ``memory``,
``time`` and ``git``, so the two filesystem servers never share a key. The servers of the
2026-11 batch (eval/batches/2026-11-new-servers.json), started only for cases of theirs, are ``sqlite`` (mcp-server-sqlite on a
seeded shop database), ``calculator`` (mcp-server-calculator), ``excel`` (excel-mcp-server
confined to a folder of seeded workbooks, which it declares as its roots) and ``redis``
(@modelcontextprotocol/server-redis on a database of the local Redis at 127.0.0.1:6379). Those of
the 2026-11-held-out-3 batch, started only for its cases, are ``vault`` (mcpvault on a seeded
vault of markdown notes) and ``word`` (office-word-mcp-server working in a folder of seeded Word
documents); both declare their folder as their roots. Those of the 2026-11-held-out-4 batch, started
only for its cases, are ``powerpoint`` (office-powerpoint-mcp-server working in a folder of seeded
slide decks, declared as its roots) and ``toolkit`` (agent-toolkit-mcp-server on a seeded home of
todos, notes, a timer, a project and a template).
"""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from gatehouse.wiring import bundled_servers_config
from mcp_host.config import StdioServer
from mcp_host.reported import UnavailableError
from tests.interop.peers import (
    CALCULATOR_BIN,
    EVERYTHING_JS,
    EXCEL_BIN,
    EXCEL_PYTHON,
    FILESYSTEM_JS,
    GIT_BIN,
    MEMORY_JS,
    NPM_PREFIX,
    POWERPOINT_BIN,
    POWERPOINT_PYTHON,
    REDIS_JS,
    SQLITE_BIN,
    STAMP,
    TIME_BIN,
    TOOLKIT_BIN,
    TOOLKIT_PYTHON,
    VAULT_JS,
    WORD_BIN,
    WORD_PYTHON,
)

# The peers, by the name the servers file gives them.
PEER_SERVERS = ("files", "everything", "memory", "time", "git")
# The servers that came with the 2026-11 batch (eval/batches/2026-11-new-servers.json).
BATCH_SERVERS = ("sqlite", "calculator", "excel", "redis")
# The servers that came with the 2026-11-held-out-3 batch (eval/batches/2026-11-held-out-3.json).
DOCUMENT_SERVERS = ("vault", "word")
# The servers that came with the 2026-11-held-out-4 batch (eval/batches/2026-11-held-out-4.json).
DESK_SERVERS = ("powerpoint", "toolkit")

# What the folder server-filesystem is confined to holds: a few files a request can name.
SHARED_FILES = {
    "meeting-notes.md": "# Meeting notes\n\nShip the selection benchmark.\n",
    "todo.txt": "- renew the certificate\n- book the review meeting\n",
    "reports/q3.md": "# Q3 report\n\nRevenue grew 4%.\n",
    "reports/q4.md": "# Q4 report\n\nRevenue grew 6%.\n",
    "src/app.py": "print('hello')\n",
    "config.json": '{"debug": false, "port": 8080}\n',
}
# server-memory's graph file: one JSON object a line.
MEMORY_GRAPH = [
    {"type": "entity", "name": "Alice", "entityType": "person", "observations": ["works on billing"]},
    {"type": "entity", "name": "Acme Corp", "entityType": "organization", "observations": ["a customer"]},
    {"type": "relation", "from": "Alice", "to": "Acme Corp", "relationType": "works_with"},
]

# mcp-server-sqlite's database: a small shop.
SHOP_TABLES: dict[str, tuple[str, list[tuple[object, ...]]]] = {
    "customers": (
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT, signed_up TEXT)",
        [
            (1, "Alice Martin", "Berlin", "2026-01-14"),
            (2, "Bob Chen", "Madrid", "2026-03-02"),
            (3, "Carla Diaz", "Madrid", "2026-05-21"),
            (4, "Dev Patel", "Lyon", "2026-08-09"),
        ],
    ),
    "products": (
        "CREATE TABLE products (sku TEXT PRIMARY KEY, name TEXT NOT NULL, price REAL, stock INTEGER)",
        [("KB-01", "Keyboard", 49.9, 120), ("MS-02", "Mouse", 19.5, 300), ("MN-27", "Monitor", 229.0, 15)],
    ),
    "orders": (
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id),"
        " sku TEXT REFERENCES products(sku), quantity INTEGER, total REAL, ordered_on TEXT)",
        [
            (101, 1, "KB-01", 2, 99.8, "2026-10-01"),
            (102, 2, "MN-27", 1, 229.0, "2026-10-15"),
            (103, 3, "MS-02", 4, 78.0, "2026-11-02"),
            (104, 1, "MN-27", 2, 458.0, "2026-11-20"),
        ],
    ),
}
# excel-mcp-server's folder: workbook -> sheet -> rows (the first row a header).
WORKBOOKS: dict[str, dict[str, list[list[object]]]] = {
    "sales.xlsx": {
        "Q3": [
            ["Region", "Month", "Units", "Revenue"],
            ["North", "July", 120, 2400],
            ["South", "July", 80, 1600],
            ["North", "August", 95, 1900],
            ["South", "August", 130, 2600],
            ["North", "September", 110, 2200],
        ],
        "Summary": [["Metric", "Value"], ["Total revenue", "=SUM(Q3!D2:D6)"], ["Best region", "South"]],
    },
    "budget.xlsx": {
        "2026": [["Team", "Budget", "Spent"], ["Marketing", 50000, 41000], ["Engineering", 120000, 98000]],
    },
}
_SEED_WORKBOOKS = """
import json, sys
from openpyxl import Workbook
for name, sheets in json.loads(sys.argv[2]).items():
    book = Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    book.save(f"{sys.argv[1]}/{name}")
"""
# server-redis's data: a database of its own on the local Redis, emptied and seeded each run.
REDIS_HOST, REDIS_PORT, REDIS_DB = "127.0.0.1", 6379, 12
REDIS_KEYS = {
    "session:alice": "logged-in",
    "session:bob": "expired",
    "config:feature_flags": '{"dark_mode": true, "beta_search": false}',
    "cache:homepage": "<h1>Welcome</h1>",
    "counter:visits": "4521",
}

# mcpvault's vault: a team's notes, with frontmatter, tags, a wiki link and one file that is not
# a note.
VAULT_FILES = {
    "Inbox.md": "---\ntags: [inbox]\n---\n# Inbox\n\n- call the venue about the offsite\n"
    "- ask Tomas for the Q4 numbers\n",
    "Projects/Apollo.md": "---\nstatus: active\nowner: Priya\ndue: 2026-12-15\ntags: [project, launch]\n---\n"
    "# Apollo\n\n## Goals\n\nShip the new onboarding flow before the December freeze.\n\n"
    "## Risks\n\n- the payment provider's sandbox is flaky\n- design review still pending\n\n"
    "## Next steps\n\n- finish the copy for step three\n- book a usability session\n\n"
    "Decisions are in [[2026-11-20-standup]]. #launch\n",
    "Projects/Hermes.md": "---\nstatus: paused\nowner: Tomas\ntags: [project]\n---\n# Hermes\n\n"
    "Paused until the data contract with Acme Corp is signed.\n",
    "Meetings/2026-11-20-standup.md": "---\ndate: 2026-11-20\nattendees: [Priya, Tomas, Lena]\n"
    "tags: [meeting]\n---\n# Standup 20 November\n\n- Apollo: the onboarding copy is late, Priya owns it\n"
    "- Hermes: still waiting on legal\n- Decision: the launch demo moves to 4 December\n",
    "Meetings/2026-11-27-retro.md": "---\ndate: 2026-11-27\ntags: [meeting, retro]\n---\n"
    "# Retro 27 November\n\n## Went well\n\n- the release went out without a rollback\n\n"
    "## To improve\n\n- too many late reviews #process\n",
    "People/Priya.md": "---\nrole: product manager\nteam: growth\ntags: [person]\n---\n# Priya\n\n"
    "Owns Apollo. Prefers written updates.\n",
    "People/Tomas.md": "---\nrole: data engineer\nteam: platform\ntags: [person]\n---\n# Tomas\n\n"
    "Owns Hermes. Out of office 1 to 5 December.\n",
    "Reading list.md": "# Reading list\n\n- Designing Data-Intensive Applications\n- The Mom Test\n",
    "Attachments/architecture.svg": '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>\n',
}
# office-word-mcp-server's folder: document -> blocks, each (kind, value); a comment is on the
# paragraph before it, as [author, text]; "author" and "created" are the document's properties.
DOCUMENTS: dict[str, list[tuple[str, object]]] = {
    "proposal.docx": [
        ("author", "Priya"),
        ("created", "2026-11-18T09:00:00"),
        ("title", "Apollo proposal"),
        ("heading", "Background"),
        ("paragraph", "Acme Corp asked for a faster onboarding flow for its new customers."),
        ("heading", "Budget"),
        ("paragraph", "The total budget is 48,000 euros."),
        ("comment", ["Lena", "Check this against the budget workbook."]),
        (
            "table",
            [
                ["Item", "Owner", "Cost"],
                ["Design", "Priya", "12000"],
                ["Engineering", "Tomas", "30000"],
                ["Testing", "Lena", "6000"],
            ],
        ),
        ("heading", "Timeline"),
        ("paragraph", "Work starts on 1 December and ends on 15 February."),
        ("comment", ["Tomas", "February is tight for the data migration."]),
    ],
    "minutes.docx": [
        ("author", "Lena"),
        ("created", "2026-11-24T17:30:00"),
        ("title", "Board meeting minutes"),
        ("paragraph", "Present: Priya, Tomas and Lena."),
        ("paragraph", "The board approved the Apollo budget."),
        ("paragraph", "Hermes stays paused until the contract is signed."),
        ("paragraph", "Next meeting: 12 January."),
    ],
    "letter.docx": [
        ("author", "Priya"),
        ("created", "2026-11-26T11:15:00"),
        ("paragraph", "Dear Mr Jensen,"),
        ("paragraph", "Thank you for meeting us last week. We would be glad to start the pilot in January."),
        ("paragraph", "Kind regards,"),
        ("paragraph", "Priya"),
    ],
}
_SEED_DOCUMENTS = """
import json, sys
from datetime import datetime
from docx import Document
for name, blocks in json.loads(sys.argv[2]).items():
    document, last = Document(), None
    for kind, value in blocks:
        if kind == "author":
            document.core_properties.author = value
        elif kind == "created":
            document.core_properties.created = document.core_properties.modified = datetime.fromisoformat(value)
        elif kind == "title":
            last = document.add_heading(value, level=0)
            document.core_properties.title = value
        elif kind == "heading":
            last = document.add_heading(value, level=1)
        elif kind == "paragraph":
            last = document.add_paragraph(value)
        elif kind == "table":
            table = document.add_table(rows=len(value), cols=len(value[0]))
            for r, row in enumerate(value):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
        elif kind == "comment":
            document.add_comment(last.runs, text=value[1], author=value[0])
    document.save(f"{sys.argv[1]}/{name}")
"""

# office-powerpoint-mcp-server's folder: deck -> its properties and slides, each a title and either
# bullet lines, a table (the first row a header) or a subtitle, and optional speaker notes.
DECKS: dict[str, dict[str, object]] = {
    "q3-review.pptx": {
        "author": "Tomas",
        "title": "Q3 review",
        "slides": [
            {"title": "Q3 review", "subtitle": "Sales and onboarding, July to September 2026"},
            {
                "title": "Highlights",
                "bullets": ["Revenue grew 4%", "South led in August", "Two new customers in Madrid"],
                "notes": "Mention that the North numbers for September are provisional.",
            },
            {
                "title": "Revenue by region",
                "table": [["Region", "Units", "Revenue"], ["North", "325", "6500"], ["South", "210", "4200"]],
            },
            {
                "title": "Next steps",
                "bullets": ["Hire a second account manager", "Ship the Apollo onboarding"],
            },
        ],
    },
    "onboarding.pptx": {
        "author": "Lena",
        "title": "Welcome to the team",
        "slides": [
            {"title": "Welcome to the team", "subtitle": "Your first week at Acme Corp"},
            {
                "title": "Your first week",
                "bullets": ["Laptop and accounts on day one", "Meet your buddy", "Read the handbook"],
            },
            {"title": "Who to ask", "bullets": ["Priya: product", "Tomas: data", "Lena: testing"]},
        ],
    },
    "apollo-kickoff.pptx": {
        "author": "Priya",
        "title": "Apollo kickoff",
        "slides": [
            {"title": "Apollo kickoff", "subtitle": "A faster onboarding flow"},
            {
                "title": "Timeline",
                "bullets": ["Work starts 1 December", "Launch demo 4 December", "Freeze 15 December"],
                "notes": "The demo date moved at the 20 November standup.",
            },
        ],
    },
}
_SEED_DECKS = """
import json, sys
from pptx import Presentation
for name, deck in json.loads(sys.argv[2]).items():
    pres = Presentation()
    pres.core_properties.author = deck["author"]
    pres.core_properties.title = deck["title"]
    for spec in deck["slides"]:
        layout = 0 if "subtitle" in spec else 5 if "table" in spec else 1
        slide = pres.slides.add_slide(pres.slide_layouts[layout])
        slide.shapes.title.text = spec["title"]
        if "subtitle" in spec:
            slide.placeholders[1].text = spec["subtitle"]
        if "bullets" in spec:
            body = slide.placeholders[1].text_frame
            body.text = spec["bullets"][0]
            for line in spec["bullets"][1:]:
                body.add_paragraph().text = line
        if "table" in spec:
            rows = spec["table"]
            table = slide.shapes.add_table(len(rows), len(rows[0]), 914400, 1600200, 7315200, 1371600).table
            for r, row in enumerate(rows):
                for c, text in enumerate(row):
                    table.cell(r, c).text = text
        if "notes" in spec:
            slide.notes_slide.notes_text_frame.text = spec["notes"]
    pres.save(f"{sys.argv[1]}/{name}")
"""
# agent-toolkit-mcp-server's home: what its own tools are called with, in order, to seed it. Its
# ids are random hex; the seeding makes them the ones listed in TOOLKIT_IDS (a request can quote
# one, as an operator copies it from a list).
TOOLKIT_SEED: list[tuple[str, dict[str, object]]] = [
    (
        "project_register",
        {
            "name": "apollo",
            "path": "{root}/apollo",
            "description": "The new onboarding flow",
            "tags": "launch",
        },
    ),
    ("todo_create", {"text": "Renew the TLS certificate for the status page", "tags": "ops"}),
    ("todo_create", {"text": "Send the Q4 numbers to finance", "tags": "finance"}),
    (
        "todo_create",
        {"text": "Finish the onboarding copy for step three", "project": "apollo", "tags": "copy"},
    ),
    ("todo_create", {"text": "Book a usability session", "project": "apollo", "tags": "research"}),
    ("todo_create", {"text": "Order new badges for the offsite"}),
    ("todo_comment_add", {"todo_id": "{todo-3}", "body": "Priya wants a draft by Friday."}),
    (
        "note_write",
        {
            "name": "standup-log",
            "content": "# Standup log\n\n## 2026-11-27\n\n- Apollo copy is late\n"
            "- the offsite venue is confirmed\n",
            "tags": "meetings",
        },
    ),
    (
        "note_write",
        {
            "name": "release-checklist",
            "content": "# Release checklist\n\n1. freeze the branch\n"
            "2. run the smoke tests\n3. tag the release\n4. post in #releases\n",
            "tags": "ops",
        },
    ),
    (
        "project_doc_write",
        {
            "project": "apollo",
            "name": "decisions",
            "content": "# Decisions\n\n- 2026-11-20: the launch demo moves to 4 December\n",
        },
    ),
    (
        "timer_set",
        {
            "name": "weekly report",
            "fire_at": "2026-12-05T09:00:00+00:00",
            "recurring_seconds": 604800,
            "message": "Write the weekly report",
        },
    ),
    (
        "template_create",
        {
            "name": "status-update",
            "template": "Status of {project}: {status}. Next: {next}.",
            "description": "A one-line status for the team channel",
            "tags": "reporting",
        },
    ),
]
TOOLKIT_IDS = (
    "1c0ffee0000000000000000000000001",
    "2c0ffee0000000000000000000000002",
    "3c0ffee0000000000000000000000003",
    "4c0ffee0000000000000000000000004",
    "5c0ffee0000000000000000000000005",
)
_SEED_TOOLKIT = """
import asyncio, json, os, sys, uuid
os.environ["AGENT_TOOLKIT_HOME"] = sys.argv[1]
os.makedirs(os.path.join(sys.argv[1], "apollo"), exist_ok=True)
import server
app, ids, made, draw = server.build_server(), iter(json.loads(sys.argv[3])), [], uuid.uuid4
async def seed():
    for tool, arguments in json.loads(sys.argv[2]):
        arguments = {k: v.replace("{root}", sys.argv[1]) if isinstance(v, str) else v for k, v in arguments.items()}
        arguments = {k: made[int(v[6:-1]) - 1] if str(v).startswith("{todo-") else v for k, v in arguments.items()}
        # A todo's id is the next listed one (uuid4 is what the server draws them from).
        uuid.uuid4 = (lambda fixed=uuid.UUID(next(ids)): fixed) if tool == "todo_create" else draw
        reply = await app.call_tool(tool, arguments)
        text = (reply[0] if isinstance(reply, tuple) else reply)[0].text
        if json.loads(text).get("error"):
            sys.exit(f"{tool} failed: {text}")
        if tool == "todo_create":
            made.append(json.loads(text)["id"])
asyncio.run(seed())
"""


class PeersMissingError(UnavailableError, RuntimeError):
    """A peer server is not built (`make peers`), or a program it needs is not on PATH."""


@dataclass(frozen=True)
class EvalWorkspace:
    """Where everything lives; ``placeholders`` fill ``{files_root}`` and ``{repo}`` in requests."""

    root: Path
    data_dir: Path
    servers_file: Path
    db_path: Path
    files_root: Path
    repository: Path
    placeholders: dict[str, str] = field(default_factory=dict)

    def cli_options(self) -> list[str]:
        """The options every `gatehouse` command of the benchmark takes (the shipped policy is
        the default, so it is not named)."""
        return ["--servers", str(self.servers_file), "--db", str(self.db_path)]


def _require(path: Path, what: str) -> str:
    if not path.exists():
        raise PeersMissingError(f"{what} not found at {path}: run `make peers`")
    return str(path)


def _program(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise PeersMissingError(f"{name} not found on PATH (the peer servers need it)")
    return found


def _seed_files(root: Path) -> None:
    for relative, text in SHARED_FILES.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _seed_repository(repo: Path) -> None:
    """Three commits on main, a branch, one modified and one untracked file."""
    git = _program("git")
    repo.mkdir(parents=True)

    def run(*args: str) -> None:
        subprocess.run(
            [git, "-c", "user.name=Eval", "-c", "user.email=eval@example.invalid", *args],
            cwd=repo,
            check=True,
            capture_output=True,
            timeout=30,
        )

    run("init", "--quiet", "--initial-branch=main")
    (repo / "README.md").write_text("# Demo\n", encoding="utf-8")
    run("add", "README.md")
    run("commit", "--quiet", "-m", "Initial commit")
    (repo / "login.py").write_text("def login(user):\n    return True\n", encoding="utf-8")
    run("add", "login.py")
    run("commit", "--quiet", "-m", "Add login page")
    (repo / "README.md").write_text("# Demo\n\nA small demo repository.\n", encoding="utf-8")
    run("commit", "--quiet", "-am", "Fix typo in README")
    run("branch", "feature-search")
    (repo / "login.py").write_text("def login(user):\n    return user is not None\n", encoding="utf-8")
    (repo / "scratch.txt").write_text("untracked\n", encoding="utf-8")


def _seed_shop(database: Path) -> None:
    with sqlite3.connect(database) as connection:
        for table, (create, rows) in SHOP_TABLES.items():
            connection.execute(create)
            marks = ", ".join("?" * len(rows[0]))
            connection.executemany(f"INSERT INTO {table} VALUES ({marks})", rows)
    connection.close()


def _seed_workbooks(folder: Path) -> None:
    """Written with the openpyxl of excel-mcp-server's own venv (the app's has none)."""
    folder.mkdir(parents=True)
    python = _require(EXCEL_PYTHON, "excel-mcp-server's venv")
    done = subprocess.run(
        [python, "-c", _SEED_WORKBOOKS, str(folder), json.dumps(WORKBOOKS)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        raise PeersMissingError(f"seeding the workbooks with {python} failed: {done.stderr.strip()}")


def _seed_vault(vault: Path) -> None:
    for relative, text in VAULT_FILES.items():
        target = vault / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def _seed_documents(folder: Path) -> None:
    """Written with the python-docx of office-word-mcp-server's own venv (the app's has none)."""
    folder.mkdir(parents=True)
    python = _require(WORD_PYTHON, "office-word-mcp-server's venv")
    done = subprocess.run(
        [python, "-c", _SEED_DOCUMENTS, str(folder), json.dumps(DOCUMENTS)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    if done.returncode != 0:
        raise PeersMissingError(f"seeding the Word documents with {python} failed: {done.stderr.strip()}")


def _seed_decks(folder: Path) -> None:
    """Written with the python-pptx of office-powerpoint-mcp-server's own venv (the app's has none)."""
    folder.mkdir(parents=True)
    _run_seed(POWERPOINT_PYTHON, "office-powerpoint-mcp-server", _SEED_DECKS, str(folder), json.dumps(DECKS))


def _seed_toolkit(home: Path) -> None:
    """Seeded through agent-toolkit-mcp-server's own tools, in process in its venv: its notes are
    files with frontmatter and an index, its todos and timers rows of its own SQLite schema."""
    home.mkdir(parents=True)
    _run_seed(
        TOOLKIT_PYTHON,
        "agent-toolkit-mcp-server",
        _SEED_TOOLKIT,
        str(home),
        json.dumps(TOOLKIT_SEED),
        json.dumps(TOOLKIT_IDS),
    )


def _run_seed(python_path: Path, server: str, script: str, *args: str) -> None:
    python = _require(python_path, f"{server}'s venv")
    # Isolated (-I): neither the working folder nor PYTHONPATH may put this repository's packages
    # (storage, eval) before the server's own top-level modules of the same names.
    done = subprocess.run([python, "-I", "-c", script, *args], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise PeersMissingError(f"seeding {server}'s data with {python} failed: {done.stderr.strip()}")


def _redis_command(connection: socket.socket, replies: BinaryIO, *words: str) -> bytes:
    """One command in the Redis protocol (RESP); the reply's first line (read from ``replies``,
    the connection's one reader: a reader per reply could buffer the next one away)."""
    encoded = b"".join(b"$%d\r\n%s\r\n" % (len(w.encode()), w.encode()) for w in words)
    connection.sendall(b"*%d\r\n" % len(words) + encoded)
    return _redis_reply(replies, words[0])


def _redis_reply(replies: BinaryIO, command: str) -> bytes:
    reply = replies.readline()
    if reply.startswith(b"-") or not reply:
        raise PeersMissingError(
            f"Redis at {REDIS_HOST}:{REDIS_PORT} refused {command}: {reply.decode().strip() or 'no reply'}"
        )
    return reply


def _seed_redis() -> str:
    """Empty the benchmark's Redis database, seed it, and return its URL.

    In one transaction (MULTI ... EXEC): two runs share the database (`python -m eval --jobs`,
    a test beside the runner), and a server already started on it must never see it emptied
    and half seeded, only whole (each run writes the same keys)."""
    try:
        connection = socket.create_connection((REDIS_HOST, REDIS_PORT), timeout=5)
    except OSError as exc:
        raise PeersMissingError(
            f"no Redis at {REDIS_HOST}:{REDIS_PORT} (server-redis needs one): {exc}"
        ) from exc
    with connection, connection.makefile("rb") as replies:
        _redis_command(connection, replies, "SELECT", str(REDIS_DB))
        _redis_command(connection, replies, "MULTI")
        _redis_command(connection, replies, "FLUSHDB")
        for key, value in REDIS_KEYS.items():
            _redis_command(connection, replies, "SET", key, value)
        done = _redis_command(connection, replies, "EXEC")
        # EXEC's reply: an array of each command's reply (an error among them is one line).
        for _ in range(int(done[1:])):
            _redis_reply(replies, "a seeding command")
    return f"redis://{REDIS_HOST}:{REDIS_PORT}/{REDIS_DB}"


def _built(*venv_bins: Path) -> None:
    if not (NPM_PREFIX / STAMP).is_file():
        raise PeersMissingError("the npm peers are not built: run `make peers` (needs npm)")
    for venv_bin in venv_bins:
        if not (venv_bin.parent.parent / STAMP).is_file():
            raise PeersMissingError(f"{venv_bin.parent.parent.name} is not built: run `make peers`")


def _peer_entries(files_root: Path, repository: Path, memory_file: Path) -> dict[str, dict[str, object]]:
    _built(TIME_BIN, GIT_BIN)
    node = _program("node")
    return {
        "files": {"command": node, "args": [_require(FILESYSTEM_JS, "server-filesystem"), str(files_root)]},
        "everything": {"command": node, "args": [_require(EVERYTHING_JS, "server-everything"), "stdio"]},
        "memory": {
            "command": node,
            "args": [_require(MEMORY_JS, "server-memory")],
            "env": {"MEMORY_FILE_PATH": str(memory_file)},
        },
        "time": {"command": _require(TIME_BIN, "mcp-server-time"), "args": ["--local-timezone", "UTC"]},
        "git": {"command": _require(GIT_BIN, "mcp-server-git"), "args": ["--repository", str(repository)]},
    }


def _batch_entries(root: Path) -> dict[str, dict[str, object]]:
    """The 2026-11 batch's servers, their data seeded under ``root`` (and in Redis)."""
    _built(SQLITE_BIN, CALCULATOR_BIN, EXCEL_BIN)
    node = _program("node")
    shop = root / "shop.db"
    workbooks = root / "workbooks"
    _seed_shop(shop)
    _seed_workbooks(workbooks)
    redis_url = _seed_redis()
    return {
        "sqlite": {"command": _require(SQLITE_BIN, "mcp-server-sqlite"), "args": ["--db-path", str(shop)]},
        "calculator": {"command": _require(CALCULATOR_BIN, "mcp-server-calculator"), "args": []},
        # Its folder is declared as its roots, as docs/configuration.md tells a team to: the policy holds the
        # workbook paths of its writes to that folder (a reviewer sees them, nothing refuses them).
        "excel": {
            "command": _require(EXCEL_BIN, "excel-mcp-server"),
            "args": ["stdio", "--allow-dir", str(workbooks)],
            "roots": [str(workbooks)],
        },
        "redis": {"command": node, "args": [_require(REDIS_JS, "server-redis"), redis_url]},
    }


def _document_entries(root: Path) -> dict[str, dict[str, object]]:
    """The 2026-11-held-out-3 batch's servers, their data seeded under ``root``. mcpvault takes
    note paths relative to its vault, office-word-mcp-server file names relative to its working
    folder: each folder is declared as the server's roots, so the policy holds both to it."""
    _built(WORD_BIN)
    node = _program("node")
    vault = root / "vault"
    documents = root / "documents"
    _seed_vault(vault)
    _seed_documents(documents)
    return {
        "vault": {
            "command": node,
            "args": [_require(VAULT_JS, "mcpvault"), str(vault)],
            "roots": [str(vault)],
        },
        "word": {
            "command": _require(WORD_BIN, "office-word-mcp-server"),
            "args": [],
            "cwd": str(documents),
            "roots": [str(documents)],
        },
    }


def _desk_entries(root: Path) -> dict[str, dict[str, object]]:
    """The 2026-11-held-out-4 batch's servers, their data seeded under ``root``.
    office-powerpoint-mcp-server opens and saves decks by paths relative to its working folder,
    declared as its roots; agent-toolkit-mcp-server keeps everything in the home its environment
    names (no path argument reaches it, so it declares no roots)."""
    _built(POWERPOINT_BIN, TOOLKIT_BIN)
    decks = root / "decks"
    toolkit_home = root / "toolkit"
    _seed_decks(decks)
    _seed_toolkit(toolkit_home)
    return {
        "powerpoint": {
            "command": _require(POWERPOINT_BIN, "office-powerpoint-mcp-server"),
            "args": [],
            "cwd": str(decks),
            "roots": [str(decks)],
        },
        "toolkit": {
            "command": _require(TOOLKIT_BIN, "agent-toolkit-mcp-server"),
            "args": [],
            "env": {"AGENT_TOOLKIT_HOME": str(toolkit_home)},
        },
    }


def _bundled_entries(demo_dir: Path) -> dict[str, dict[str, object]]:
    """The bundled servers with the commands the shipped servers file gives them."""
    entries: dict[str, dict[str, object]] = {}
    for entry in bundled_servers_config(demo_dir).servers:
        if not isinstance(entry, StdioServer):
            raise TypeError(f"bundled server {entry.name} is not a stdio server")
        entries[entry.name] = {"command": entry.command, "args": entry.args}
    return entries


def build_workspace(
    root: Path, *, batch_servers: bool = False, document_servers: bool = False, desk_servers: bool = False
) -> EvalWorkspace:
    """Seed the peers' data under ``root`` and write the servers file naming the eleven servers,
    four more with ``batch_servers``, two more with ``document_servers`` and two more with
    ``desk_servers``.

    The batches' servers are opt-in because adding servers changes what the planner chooses among:
    the main cases are scored on the servers they were written for (with the four more, the
    deterministic planner got 324 of 363 instead of 334 on 2026-11-27), a batch on those it was
    written for."""
    data_dir = root / "data"
    files_root = root / "shared"
    repository = root / "repo"
    memory_file = root / "memory.jsonl"
    files_root.mkdir(parents=True)
    _seed_files(files_root)
    _seed_repository(repository)
    memory_file.write_text("\n".join(json.dumps(line) for line in MEMORY_GRAPH) + "\n", encoding="utf-8")
    servers = _peer_entries(files_root, repository, memory_file)
    if batch_servers:
        servers |= _batch_entries(root)
    if document_servers:
        servers |= _document_entries(root)
    if desk_servers:
        servers |= _desk_entries(root)
    servers |= _bundled_entries(data_dir / "demo")
    data_dir.mkdir(parents=True, exist_ok=True)
    servers_file = root / "servers.json"
    servers_file.write_text(json.dumps({"mcpServers": servers}, indent=2), encoding="utf-8")
    return EvalWorkspace(
        root=root,
        data_dir=data_dir,
        servers_file=servers_file,
        db_path=data_dir / "gatehouse.db",
        files_root=files_root,
        repository=repository,
        placeholders={"files_root": str(files_root), "repo": str(repository)},
    )


@contextmanager
def eval_workspace(
    *, batch_servers: bool = False, document_servers: bool = False, desk_servers: bool = False
) -> Iterator[EvalWorkspace]:
    with tempfile.TemporaryDirectory(prefix="gatehouse-eval-") as root:
        yield build_workspace(
            Path(root),
            batch_servers=batch_servers,
            document_servers=document_servers,
            desk_servers=desk_servers,
        )
