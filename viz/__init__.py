"""Pure builders: an engine trace in, a Plotly figure or a pandas DataFrame out. No Streamlit."""
