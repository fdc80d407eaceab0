"""A click and the message sent right after it reach the page together (issue 32, item 9).

The browser sends each interaction as a rerun request of its own, and sends a button's click
(a trigger) once: the next request no longer carries it. "New thread" then a message typed at
once are two requests a few milliseconds apart. Streamlit's session (AppSession) decides what
runs: with the app's configuration (.streamlit/config.toml), a request that arrives while the
click's run has not yet begun must join it, so the run that follows sees the click (its
callback starts the new thread) and the message. With Streamlit's default fast reruns it
stopped the click's run and started the message's alone: the message went to the thread shown
before the click, and no run ever carried the click.

Driven here at the seam, the session's own ``request_rerun``, with script runners that hold
their requests and never run the app: the order of the two requests is exact, which in a
browser it is only now and then (the click's run lost the race about twice in fifteen tries).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from streamlit import config
from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.runtime.app_session import AppSession, AppSessionState
from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests, ScriptRequestType
from streamlit.testing.v1.util import patch_config_options

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"
NEW_THREAD = "$$ID-new-thread-button"
CHAT_INPUT = "$$ID-chat-input"
MESSAGE = "List the files in the managed project folder."


class HeldRunner:
    """A script runner that has not begun its run yet: it only holds its requests, as the real
    one does until its thread takes the first (ScriptRunner.request_rerun, request_stop)."""

    def __init__(self, first: RerunData) -> None:
        self.requests = ScriptRequests()
        self.requests.request_rerun(first)

    def request_rerun(self, rerun_data: RerunData) -> bool:
        return self.requests.request_rerun(rerun_data)

    def request_stop(self) -> None:
        self.requests.request_stop()


def configured_fast_reruns() -> bool:
    """runner.fastReruns as the app's configuration file sets it (Streamlit's default if not)."""
    runner = tomllib.loads(CONFIG.read_text(encoding="utf-8")).get("runner", {})
    default = config._config_options_template["runner.fastReruns"].default_val
    return bool(runner.get("fastReruns", default))


def session_with_held_runners() -> tuple[AppSession, list[HeldRunner]]:
    """An AppSession reduced to what request_rerun reads; each runner it starts is kept."""
    session = AppSession.__new__(AppSession)
    session._state = AppSessionState.APP_IS_RUNNING
    session._client_state = ClientState()
    session._scriptrunner = None
    runners: list[HeldRunner] = []

    def create(initial: RerunData) -> None:
        runners.append(HeldRunner(initial))
        session._scriptrunner = runners[-1]  # type: ignore[assignment]

    session._create_scriptrunner = create  # type: ignore[method-assign, assignment]
    return session, runners


def request(*widgets: WidgetState) -> ClientState:
    state = ClientState(page_script_hash="chat")
    state.widget_states.widgets.extend(widgets)
    return state


def clicked(widget: str) -> WidgetState:
    return WidgetState(id=widget, trigger_value=True)


def typed(widget: str, text: str) -> WidgetState:
    state = WidgetState(id=widget)
    state.chat_input_value.data = text
    return state


def test_a_message_sent_before_the_new_thread_clicks_run_began_runs_with_the_click() -> None:
    with patch_config_options({"runner.fastReruns": configured_fast_reruns()}):
        session, runners = session_with_held_runners()
        session.request_rerun(request(clicked(NEW_THREAD)))
        # The browser has sent the click (its trigger is cleared there) and now the message.
        session.request_rerun(
            request(WidgetState(id=NEW_THREAD, trigger_value=False), typed(CHAT_INPUT, MESSAGE))
        )
        # Nothing to shut down: the reduced session has no event loop, uploads or runners of its own.
        session._state = AppSessionState.SHUTDOWN_REQUESTED

    pending = [runner.requests.on_scriptrunner_ready() for runner in runners]
    runs = [ask.rerun_data for ask in pending if ask.type is ScriptRequestType.RERUN]
    assert len(runs) == 1, f"{len(runs)} runs for one click and one message"
    [run] = runs
    assert run.widget_states is not None
    widgets = {widget.id: widget for widget in run.widget_states.widgets}
    assert widgets[NEW_THREAD].trigger_value, "the run that files the message has lost the click"
    assert widgets[CHAT_INPUT].chat_input_value.data == MESSAGE
