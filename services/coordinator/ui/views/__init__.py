"""View models: what each page shows, shaped from stored data by pure functions (unit-tested)."""
