"""A third-party evaluator package, as a user would write one (installed by the tests)."""
