"""Pure builders: an engine trace in, an SVG chart (``viz.svg``) or a pandas DataFrame out. No Streamlit."""
