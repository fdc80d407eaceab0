"""Text people read, the same on a terminal and on a page: other people's text with every
control character shown (visible_text.py), times in the reader's zone, how a review ended, why
no server was called, the capability catalogue, a policy's report and a review's row.

Used by cli/ and web/ alike, so it imports neither: no Streamlit, no argparse, nothing else of
gatehouse/ (no wiring, no settings). It may read the models of the layers below (graph/,
reviews/, mcp_host/, policies/).
"""
