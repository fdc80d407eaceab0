"""GATEHOUSE_MODEL picks the planner: made through LangChain's init_chat_model, named in
`gatehouse servers check`, and refused plainly (naming the extra to install) when it cannot be."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from gatehouse.errors import ConfigurationError
from gatehouse.planner_choice import planner_for
from gatehouse.settings import Settings
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.model import ModelPlanner
from tests.cli_support import Ran, run_cli
from tests.graph.scripted_model import ScriptedChatModel

REPO = Path(__file__).resolve().parents[2]
STAND_IN = Path(__file__).resolve().parent / "stand_in_provider"
REQUIRE_EXTRAS_VARIABLE = "GATEHOUSE_REQUIRE_MODEL_EXTRAS"


def test_no_model_means_the_deterministic_planner() -> None:
    assert isinstance(planner_for(None), DeterministicPlanner)
    assert isinstance(planner_for(""), DeterministicPlanner)


def test_a_model_is_made_by_init_chat_model_with_its_provider_and_a_time_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made: list[tuple[str, dict[str, Any]]] = []

    def init_chat_model(model: str, **options: Any) -> ScriptedChatModel:
        made.append((model, options))
        return ScriptedChatModel()

    monkeypatch.setitem(sys.modules, "langchain_openai", types.ModuleType("langchain_openai"))
    monkeypatch.setattr("langchain.chat_models.init_chat_model", init_chat_model)

    planner = planner_for("openai:gpt-4.1-mini", timeout=12.0)

    assert isinstance(planner, ModelPlanner)
    assert made == [("gpt-4.1-mini", {"model_provider": "openai", "timeout": 12.0})]
    assert planner.label == "language model openai:gpt-4.1-mini (falls back to deterministic)"


def test_a_missing_provider_package_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "langchain_anthropic", None)  # import fails, as when not installed

    with pytest.raises(ConfigurationError) as raised:
        planner_for("anthropic:claude-sonnet-4-5")

    assert str(raised.value) == (
        "GATEHOUSE_MODEL=anthropic:claude-sonnet-4-5: the anthropic provider needs the package "
        "langchain-anthropic, which is not installed; install the 'anthropic' extra: pip install -e '.[anthropic]'"
    )


def test_a_model_without_its_provider_or_with_an_unknown_one_is_refused() -> None:
    with pytest.raises(
        ConfigurationError, match=re.escape("expected provider:model, e.g. openai:gpt-4.1-mini")
    ):
        planner_for("gpt-4.1-mini")
    with pytest.raises(ConfigurationError, match=r"GATEHOUSE_MODEL=nosuch:model: ValueError: Unsupported"):
        planner_for("nosuch:model")


def test_a_provider_that_refuses_to_start_is_a_configuration_error_that_hides_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key = "sk-proj-4f9aQ2x7Lk3Vb8Tn1Rz6Yw0Pd5Hs"

    def init_chat_model(model: str, **options: Any) -> ScriptedChatModel:
        raise RuntimeError(f"Incorrect API key provided: {key}")

    monkeypatch.setitem(sys.modules, "langchain_openai", types.ModuleType("langchain_openai"))
    monkeypatch.setattr("langchain.chat_models.init_chat_model", init_chat_model)

    with pytest.raises(ConfigurationError) as raised:
        planner_for("openai:gpt-4.1-mini")

    assert "could not be set up (RuntimeError: Incorrect API key provided" in str(raised.value)
    assert key not in str(raised.value)


def test_the_time_limit_is_a_setting_and_a_nonsense_one_is_refused() -> None:
    assert Settings.resolve(environ={}).model_timeout == 30.0
    assert Settings.resolve(environ={"GATEHOUSE_MODEL_TIMEOUT": "7.5"}).model_timeout == 7.5
    for bad in ("0", "-3", "soon", "inf", "nan"):
        with pytest.raises(ConfigurationError, match="GATEHOUSE_MODEL_TIMEOUT: expected a number of seconds"):
            Settings.resolve(environ={"GATEHOUSE_MODEL_TIMEOUT": bad})


def greeter_only(tmp_path: Path) -> Path:
    servers = tmp_path / "servers.json"
    entry = {
        "command": sys.executable,
        "args": ["-m", "servers.greeter", "--data-dir", str(tmp_path / "demo")],
    }
    servers.write_text(json.dumps({"mcpServers": {"greeter": entry}}), encoding="utf-8")
    return servers


def servers_check(tmp_path: Path, env: dict[str, str]) -> Ran:
    """`gatehouse servers check` in this process, with these variables set."""
    servers = greeter_only(tmp_path)
    return run_cli(
        "servers", "check", "--servers", str(servers), env={"GATEHOUSE_DATA": str(tmp_path), **env}
    )


@pytest.mark.processes
def test_servers_check_names_the_model_first(tmp_path: Path) -> None:
    # A stand-in for the provider's package (tests/gatehouse/stand_in_provider): LangChain's own
    # init_chat_model imports and makes it, as it would langchain-openai's ChatOpenAI. In a
    # process of its own, so that the stand-in never takes the real package's place in this one.
    servers = greeter_only(tmp_path)
    env = {
        **os.environ,
        "GATEHOUSE_DATA": str(tmp_path),
        "GATEHOUSE_MODEL": "openai:gpt-4.1-mini",
        "PYTHONPATH": os.pathsep.join([str(STAND_IN), str(REPO)]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "gatehouse.cli", "servers", "check", "--servers", str(servers)],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.splitlines()[0]
        == "planner: language model openai:gpt-4.1-mini (falls back to deterministic)"
    )


def test_servers_check_refuses_a_model_whose_provider_is_not_installed(tmp_path: Path) -> None:
    done = servers_check(tmp_path, {"GATEHOUSE_MODEL": "nosuch:model"})

    assert done.returncode == 2
    assert done.stderr.startswith("gatehouse: GATEHOUSE_MODEL=nosuch:model: ValueError: Unsupported")


@pytest.mark.processes
def test_with_the_openai_extra_installed_the_real_provider_is_made_offline(tmp_path: Path) -> None:
    if importlib.util.find_spec("langchain_openai") is None:
        reason = "langchain-openai is not installed (pip install -e '.[openai]')"
        if os.environ.get(REQUIRE_EXTRAS_VARIABLE) == "1":
            pytest.fail(f"{reason} ({REQUIRE_EXTRAS_VARIABLE}=1)", pytrace=False)
        pytest.skip(reason)
    key = "sk-test-0000000000000000000000000000"

    done = servers_check(tmp_path, {"GATEHOUSE_MODEL": "openai:gpt-4.1-mini", "OPENAI_API_KEY": key})

    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.splitlines()[0]
        == "planner: language model openai:gpt-4.1-mini (falls back to deterministic)"
    )
    assert key not in done.stdout + done.stderr
