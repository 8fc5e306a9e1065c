"""Access: API keys and their roles, projects, the audit log, one-time sign-in links for the web UI.

- ``api/``: ``/keys``, ``/projects``, ``/audit``, ``/sign-in-links``.
- ``store/``: the rows; every feature records its changes through ``store.audit`` and acts in the
  project ``store.projects`` resolves.
"""
