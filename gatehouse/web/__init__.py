"""What the Streamlit pages (app.py and views/) share: the process-wide services and who is at
the browser (page.py), widgets and panels (question forms, sampling, notifications, the
catalogue, an argument form), text drawn literally (literal.py) and the helpers the pages draw
with (short ids, result shapes, effect previews, the live queue, background runs).

May import display/, credentials/, notifications/, the composition root (gatehouse/*.py) and the
layers below; never cli/. Only the pages import it.
"""
