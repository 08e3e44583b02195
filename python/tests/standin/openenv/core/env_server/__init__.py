"""tests/standin/openenv/core/env_server: the types module only."""
