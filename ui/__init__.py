"""Streamlit glue shared by the pages: the shared settings and the render helpers."""
