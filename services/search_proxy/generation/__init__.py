"""Golden-set generation: LLM query generation over the corpus, critic filtering, ground-truth
resolution and a validated golden dataset file. The chat models are injected."""
