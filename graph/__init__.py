"""The LangGraph workflow. Imports no Streamlit; reaches MCP and policy only through its context."""
