"""A stand-in for the langchain-openai package, put on PYTHONPATH by one test so that
`gatehouse servers check` with GATEHOUSE_MODEL=openai:... runs LangChain's real init_chat_model
without the optional extra installed. It never answers and never connects anywhere."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from pydantic import Field


class ChatOpenAI(FakeListChatModel):
    model: str = ""
    timeout: float | None = None
    responses: list[str] = Field(default_factory=list)
