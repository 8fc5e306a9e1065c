"""search-proxy: one search interface (``search.query`` over NATS, ``POST /v1/search``) over the
built-in corpus index (Postgres full-text search) and upstream HTTP search APIs."""
