"""The UI's routes, one module per page (each a stable deep link under /ui)."""
