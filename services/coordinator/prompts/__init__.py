"""The prompt registry: versions pushed, labels moved, a reference resolved (what the agent runs)."""
