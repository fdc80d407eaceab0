"""Which planner plans requests: the deterministic one unless a language model is configured.

`GATEHOUSE_MODEL=provider:model` (or ``[planner] model`` in the app's secrets) names a model;
LangChain's init_chat_model makes it, and graph/planner/model.py asks it. The provider's
LangChain package is an optional extra (pip install -e '.[openai]'); its key comes from the
provider's usual environment variable (OPENAI_API_KEY, ANTHROPIC_API_KEY; Ollama needs none).
A model that cannot be set up (no provider package, an unknown provider, no key) is a
configuration error, said plainly and without any key in it: Gatehouse does not quietly plan
with something other than what was configured.
"""

from __future__ import annotations

import importlib
from typing import Any

from gatehouse.errors import ConfigurationError
from gatehouse.settings import DEFAULT_MODEL_TIMEOUT, MODEL_ENV
from graph.planner.deterministic import DeterministicPlanner
from graph.planner.model import ModelPlanner
from graph.planner.model_calls import failure_reason
from graph.planner.protocol import Planner

# Provider -> (its LangChain package, the extra of this project that installs it).
PROVIDER_PACKAGES: dict[str, tuple[str, str]] = {
    "openai": ("langchain_openai", "openai"),
    "azure_openai": ("langchain_openai", "openai"),
    "anthropic": ("langchain_anthropic", "anthropic"),
    "ollama": ("langchain_ollama", "ollama"),
}


def _client_options(provider: str, timeout: float) -> dict[str, Any]:
    """The provider client's own time limit, under the name its LangChain class takes."""
    if provider in {"openai", "azure_openai", "anthropic"}:
        return {"timeout": timeout}
    if provider == "ollama":
        return {"client_kwargs": {"timeout": timeout}}
    return {}


def _split(model: str) -> tuple[str, str]:
    provider, _, name = model.partition(":")
    if not provider.strip() or not name.strip():
        raise ConfigurationError(
            f"{MODEL_ENV}={model}: expected provider:model, e.g. openai:gpt-4.1-mini, "
            "anthropic:claude-sonnet-4-5 or ollama:llama3.1"
        )
    return provider.strip(), name.strip()


def _require_package(model: str, provider: str) -> None:
    known = PROVIDER_PACKAGES.get(provider)
    if known is None:
        return  # another LangChain provider: init_chat_model names its package if it is missing
    package, extra = known
    try:
        importlib.import_module(package)
    except ImportError as exc:
        raise ConfigurationError(
            f"{MODEL_ENV}={model}: the {provider} provider needs the package {package.replace('_', '-')}, "
            f"which is not installed; install the '{extra}' extra: pip install -e '.[{extra}]'"
        ) from exc


def chat_model(model: str, *, timeout: float) -> Any:
    """The LangChain chat model ``model`` (provider:model) names, or a ConfigurationError."""
    provider, name = _split(model)
    _require_package(model, provider)
    try:
        from langchain.chat_models import init_chat_model
    except ImportError as exc:  # langchain is a dependency: only a broken install lacks it
        raise ConfigurationError(
            f"{MODEL_ENV}={model}: the package langchain is not installed; reinstall Gatehouse (pip install -e .)"
        ) from exc
    try:
        return init_chat_model(name, model_provider=provider, **_client_options(provider, timeout))
    except ImportError as exc:
        raise ConfigurationError(f"{MODEL_ENV}={model}: {failure_reason(exc)}") from exc
    except ValueError as exc:
        supported = ", ".join(sorted(PROVIDER_PACKAGES))
        raise ConfigurationError(
            f"{MODEL_ENV}={model}: {failure_reason(exc)} (extras ship for: {supported})"
        ) from exc
    except Exception as exc:  # a provider's own check (a missing key, a bad option): said plainly
        raise ConfigurationError(
            f"{MODEL_ENV}={model}: the model could not be set up ({failure_reason(exc)}); "
            "check the provider's key variable (e.g. OPENAI_API_KEY) and the model name"
        ) from exc


def planner_for(model: str | None, *, timeout: float = DEFAULT_MODEL_TIMEOUT) -> Planner:
    """The planner for a configured model name (None: the deterministic planner)."""
    if not model:
        return DeterministicPlanner()
    return ModelPlanner(chat_model(model, timeout=timeout), model, timeout=timeout)
