"""Bounds the HTTP bodies share."""

INT4_MAX = 2**31 - 1
"""The largest value a Postgres ``integer`` column holds: ids and versions above it are refused."""
