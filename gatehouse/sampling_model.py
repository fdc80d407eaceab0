"""The configured language model answering servers' approved requests for a completion.

When a reviewer approves a server's ``sampling/createMessage`` request without writing the
answer, the model GATEHOUSE_MODEL names (the planner's, made the same way: planner_choice)
answers it: the server's system prompt and messages as they were shown to the reviewer, its
token limit and stop sequences passed on, within GATEHOUSE_MODEL_TIMEOUT. Only text goes to the
model (the reviewer is told when a message holds other content). The server's model
preferences are shown to the reviewer; the model is the one configured, whatever they hint.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from mcp.types import CreateMessageRequestParams, CreateMessageResult, StopReason, TextContent

from gatehouse.planner_choice import chat_model
from gatehouse.settings import DEFAULT_MODEL_TIMEOUT
from graph.planner.model_calls import ModelCaller, ModelFailure

# A provider's finish reason -> the protocol's stop reason.
_STOP_REASONS: dict[str, StopReason] = {
    "stop": "endTurn",
    "end_turn": "endTurn",
    "length": "maxTokens",
    "max_tokens": "maxTokens",
    "stop_sequence": "stopSequence",
}


def _limits(provider: str, params: CreateMessageRequestParams) -> dict[str, Any]:
    """The request's token limit and temperature under the names the provider's client takes."""
    options: dict[str, Any] = {}
    if params.stop_sequences:
        options["stop"] = list(params.stop_sequences)
    if provider in {"openai", "azure_openai", "anthropic"}:
        options["max_tokens"] = params.max_tokens
        if params.temperature is not None:
            options["temperature"] = params.temperature
    elif provider == "ollama":
        options["num_predict"] = params.max_tokens
    return options


def model_messages(params: CreateMessageRequestParams) -> list[BaseMessage]:
    messages: list[BaseMessage] = [SystemMessage(params.system_prompt)] if params.system_prompt else []
    for message in params.messages:
        text = "\n".join(block.text for block in message.content_as_list if isinstance(block, TextContent))
        messages.append(HumanMessage(text) if message.role == "user" else AIMessage(text))
    return messages


class ModelSampler:
    """Answers a request with one call to the configured chat model (reviews/sampling.Sampler)."""

    def __init__(
        self, model: Runnable[Any, Any], label: str, *, timeout: float = DEFAULT_MODEL_TIMEOUT
    ) -> None:
        self._model = model
        self._label = label
        self._provider = label.partition(":")[0]
        self._calls = ModelCaller(timeout)

    @property
    def label(self) -> str:
        return self._label

    def complete(self, request: dict[str, Any]) -> dict[str, Any]:
        params = CreateMessageRequestParams.model_validate(request)
        reply = self._calls.invoke(
            self._model.bind(**_limits(self._provider, params)), model_messages(params)
        )
        text = reply.text.strip()
        if not text:
            raise ModelFailure("the language model answered with no text")
        metadata = reply.response_metadata or {}
        finish = str(metadata.get("finish_reason") or metadata.get("stop_reason") or "")
        result = CreateMessageResult(
            role="assistant",
            content=TextContent(type="text", text=text),
            model=str(metadata.get("model_name") or metadata.get("model") or self._label.partition(":")[2]),
            stop_reason=_STOP_REASONS.get(finish, "endTurn"),
        )
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)


def sampler_for(model: str | None, *, timeout: float = DEFAULT_MODEL_TIMEOUT) -> ModelSampler | None:
    """The sampler for a configured model name; None without one (reviewers write answers)."""
    if not model:
        return None
    return ModelSampler(chat_model(model, timeout=timeout), model, timeout=timeout)
