"""The baseline page for bench_browser.py: one text_input and one st.write, nothing else."""

import streamlit as st

sentence = st.text_input("Sentence", value="This forum is awesome", key="sentence")
st.write("You typed:", sentence)
