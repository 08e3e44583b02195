"""tests/standin/openenv/core (src/openenv/core/__init__.py at 685de411 re-exports the clients; only what is used here)."""
