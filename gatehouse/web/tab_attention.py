"""What a browser tab does, beyond the page, when reviews wait for the person in it: the
count in the tab's title ("(2) Gatehouse"), a browser notification for each new one while the
tab is out of sight (where the browser allows it and the person agreed), and a button asking
for that agreement (never asked unprompted: browsers block, and people resent, a permission
prompt nobody clicked for).

One ``<script>`` built here, run by the sidebar's live count (gatehouse/web/waiting_on_you.py)
through ``st.html``. Streamlit runs it again only when its text changes (a new count, new
reviews), so what must last is kept on ``window``: the count the title shows (Streamlit sets
the title on every page change: a watcher puts the count back), and the reviews already
notified about, so a script run again (another page drawn) never notifies twice.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

NOTIFICATION_TITLE = "Gatehouse: a review waits for you"
ASK_LABEL = "Notify me in this browser"

# The parts in JSON (below): the count, the new reviews, whether to offer notifications. The
# title keeps whatever Streamlit set, with a "(N) " prefix while N > 0.
_SCRIPT = """
(() => {
  const data = %(data)s;
  const state = window.__gatehouseAttention ||= { count: 0, notified: new Set(), watcher: null };
  state.count = data.count;
  const prefix = /^\\(\\d+\\) /;
  const keepTitle = () => {
    const base = document.title.replace(prefix, "");
    const wanted = state.count > 0 ? `(${state.count}) ${base}` : base;
    if (document.title !== wanted) document.title = wanted;
  };
  if (!state.watcher) {
    state.watcher = new MutationObserver(keepTitle);
    state.watcher.observe(document.head, { subtree: true, childList: true, characterData: true });
  }
  keepTitle();
  const supported = "Notification" in window;
  const unseen = document.visibilityState !== "visible";
  for (const review of data.fresh) {
    if (state.notified.has(review.id)) continue;
    state.notified.add(review.id);
    // In sight, the page's own toast says it; a notification on top would only repeat it.
    if (supported && unseen && Notification.permission === "granted") {
      const shown = new Notification(data.title, { body: review.text, tag: "gatehouse-reviews" });
      shown.onclick = () => { window.focus(); shown.close(); };
    }
  }
  const here = document.currentScript && document.currentScript.parentElement;
  if (!here || !data.offer || !supported || Notification.permission !== "default") return;
  const ask = document.createElement("button");
  ask.type = "button";
  ask.textContent = data.ask;
  ask.style.cssText = "font: inherit; color: inherit; background: transparent; cursor: pointer;"
    + " border: 1px solid currentColor; border-radius: 0.5rem; padding: 0.25rem 0.75rem;";
  ask.addEventListener("click", async () => {
    await Notification.requestPermission();
    if (Notification.permission !== "default") ask.remove();
  });
  here.appendChild(ask);
})();
"""


@dataclass(frozen=True)
class NewReview:
    """A review that has just started waiting for the person: what a notification says of it."""

    id: str
    text: str


def attention_script(count: int, fresh: Sequence[NewReview], *, offer: bool) -> str:
    """The ``<script>`` for a tab whose person has ``count`` reviews waiting, ``fresh`` of them
    new since the last refresh; ``offer``: show the button that asks to notify (for people
    who review). Every value goes in as JSON with ``<`` escaped, so no text (a requester's
    name, a capability's) can end the script element."""
    data = {
        "count": count,
        "fresh": [{"id": review.id, "text": review.text} for review in fresh],
        "offer": offer,
        "title": NOTIFICATION_TITLE,
        "ask": ASK_LABEL,
    }
    encoded = json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")
    return f"<script>{_SCRIPT % {'data': encoded}}</script>"
