"""Gatehouse's composition root and the rooms around it.

Here, at the top: the settings (settings.py), the wiring that builds the process-wide services
once (wiring.py, and read_only.py for commands that only read), which planner and which model
answer (planner_choice.py, sampling_model.py) and the errors for bad usage or configuration
(errors.py). These may import the layers below (graph/, reviews/, mcp_host/, policies/,
storage/) and notifications/ and credentials/, never cli/ or web/.

- cli/: the `gatehouse` command line (console entry point ``gatehouse.cli:main``; __main__.py,
  the one module up here outside the root, runs it for `python -m gatehouse`).
- web/: what the Streamlit pages (app.py, views/) share: widgets and page helpers.
- display/: text people read, the same on a terminal and a page; no Streamlit, no argparse.
- notifications/: review notifications posted to the webhook.
- credentials/: who is who: people signed in to the app, Gatehouse signed in to remote servers.
"""
