"""Seed 004 phase 1: LLM query generation over the corpus, critic filtering, ground-truth
resolution and a validated golden dataset file. The chat models are injected."""
