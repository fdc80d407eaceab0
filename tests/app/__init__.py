"""Tests of app.py and its pages (views/), driven through Streamlit's AppTest in this process."""
