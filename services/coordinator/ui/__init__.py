"""The web UI, served by the coordinator under /ui: server-rendered pages (Jinja2 + htmx) over the
same storage and analysis the API uses.

``session`` signs people in (API key or one-time link) and guards every page and form; ``views``
shape stored data into what a page shows (pure, unit-tested); ``pages`` are the routes;
``templates`` and ``static`` the markup and our own CSS/JS (``static/vendor`` comes from npm).
"""
