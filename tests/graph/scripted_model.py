"""A LangChain chat model that answers from a script, for the language-model planner's tests.

LangChain's fake chat models (langchain_core.language_models.fake_chat_models) script replies
but raise NotImplementedError from bind_tools; this one is a real BaseChatModel that accepts
tools (recording what it was shown), answers each call with the next scripted reply, and
streams a text reply word by word as providers do. A reply may be an AIMessage (with tool
calls or text), an exception to raise, or a threading.Event to wait on (a model that hangs).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from pydantic import ConfigDict, Field

Reply = AIMessage | BaseException | threading.Event


def tool_call(name: str, arguments: dict[str, Any], citations: dict[str, str], reason: str = "") -> AIMessage:
    """A reply proposing one capability, shaped as the planner's tools ask."""
    return AIMessage(
        content="",
        tool_calls=[
            {
                "name": name,
                "args": {"arguments": arguments, "citations": citations, "reason": reason},
                "id": f"call-{name}",
            }
        ],
    )


class ScriptedChatModel(BaseChatModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    # Any: pydantic would try to read an exception or an Event as a message.
    script: list[Any] = Field(default_factory=list)
    # What each call was given: its messages, and the tools bound for it (None: no tools).
    calls: list[list[BaseMessage]] = Field(default_factory=list)
    tools_seen: list[list[dict[str, Any]] | None] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
    ) -> Runnable[Any, AIMessage]:
        return self.bind(tools=list(tools), **kwargs)

    def _next(self, messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
        self.calls.append(list(messages))
        self.tools_seen.append(tools)
        if not self.script:
            raise AssertionError("the model was called more often than the test scripted")
        reply = self.script.pop(0)
        if isinstance(reply, threading.Event):
            reply.wait()
            raise TimeoutError("released after the planner stopped waiting")
        if isinstance(reply, BaseException):
            raise reply
        assert isinstance(reply, AIMessage), f"a scripted reply must be an AIMessage, not {reply!r}"
        return reply

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._next(messages, kwargs.get("tools"))
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        reply = self._next(messages, kwargs.get("tools"))
        for piece in re.split(r"(?<=\s)", reply.text):
            if piece:
                yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
        if reply.tool_calls:
            # A model that calls a tool while it should be writing: passed on as it came.
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {"name": c["name"], "args": str(c["args"]), "id": c["id"], "index": i}
                        for i, c in enumerate(reply.tool_calls)
                    ],
                )
            )
