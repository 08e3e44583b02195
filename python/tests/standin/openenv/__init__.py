"""tests/standin/openenv: a stand-in for the parts of OpenEnv (meta-pytorch/OpenEnv, openenv-core) that an environment
client touches — core.env_client.EnvClient, core.sync_client.SyncEnvClient, core.client_types.StepResult,
core.env_server.types (Action, Observation, State), core.utils.convert_to_ws_url — so searchgym.openenv's "openenv is
installed" path (SearchGymEnv subclasses EnvClient) is tested where OpenEnv is not installed (nor pydantic).

Written from OpenEnv at commit 685de411e5f77286b0fd94798d42c4467cf8a1bc (2026-05-01); each module names the file and
lines it follows. Its transport is the `websockets` stand-in beside it (tests/standin/websockets), as the real client's
is the websockets package.
"""
STANDIN = True
