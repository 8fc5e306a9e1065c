"""Datasets: named, versioned sets of items; a push that changes content makes a new version.

- ``api/``: push, list, read a version a page at a time, diff two versions, accept, delete.
- ``store/``: datasets, versions and items in PostgreSQL.
"""
