"""searchgym.verl_tool: the whole SearchGym.ts gym inside verl's agent loop — the package's one copy, which
`searchgym world export --format verl` writes next to the data as searchgym_verl_tool.py (Python 3 standard library
only; it imports nothing from searchgym, so the copy runs alone). One gym env per trajectory over the gym's HTTP env API
(POST /v1/envs, /v1/envs/{id}/step, DELETE /v1/envs/{id}); the model's search and access calls are forwarded to it,
and the trajectory's answer is scored by the gym itself (its F1 / reward spec), not by a copy of the metric.

Lifecycle, as verl b178a3c calls it (verl/tools/base_tool.py: create / execute / calc_reward / release):
  verl/experimental/agent_loop/tool_agent_loop.py:427-442 creates and releases a tool instance around EVERY call,
  passing agent_data (whose request_id is fixed for the trajectory, :143) to execute; so the env is keyed by that
  request id, not by the instance, and release() leaves it open. The env is closed by calc_reward (the answer) or
  by the gym's idle expiry (gym serve --idle-seconds).
Settings (tool yaml `config`): gym_url (e.g. http://127.0.0.1:8000, or http://HOST:8000/t/TOKEN on a
  token-protected server), action ("search" or "access"), timeout (s, default 30).
The reward: compute_score() below is a verl custom_reward_function (custom_reward_function.path=this file,
  .name=compute_score): it opens a fresh env for the row's qa_id, submits the final <answer>, and returns the gym's
  F1 — the same number `searchgym score` gives for that answer.
Known limits, left to the outside-engines issue: the HTTP calls block verl's event loop (urllib inside async methods),
and a trajectory that never reaches calc_reward keeps its env until the gym's idle expiry.
"""
import json
import re
import urllib.error
import urllib.request
import uuid

try:  # inside verl
    from verl.tools.base_tool import BaseTool
    from verl.tools.schemas import ToolResponse
except ImportError:  # standalone (tests, other engines): the same surface
    class BaseTool:  # noqa: D101
        def __init__(self, config, tool_schema):
            self.config = config
            self.tool_schema = tool_schema

    class ToolResponse:  # noqa: D101
        def __init__(self, text=None, **_):
            self.text = text

_ENVS = {}  # trajectory key -> env id


def _post(url, body, timeout, method="POST"):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.loads(e.read())
        except ValueError:
            return e.code, None


def _observation_text(step):
    return "\n".join(m.get("content", "") for m in step.get("observation", []) if m.get("role") in ("tool", "user"))


class SearchGymTool(BaseTool):
    def __init__(self, config, tool_schema=None):
        super().__init__(config, tool_schema)
        self.gym_url = config["gym_url"].rstrip("/")
        self.action = config.get("action", "search")
        self.timeout = config.get("timeout", 30)
        self._instances = {}

    async def create(self, instance_id=None, **kwargs):
        instance_id = instance_id or str(uuid.uuid4())
        self._instances[instance_id] = kwargs.get("create_kwargs", {}) or {}
        return instance_id, ToolResponse()

    def _env(self, key, create_kwargs):
        if key in _ENVS:
            return _ENVS[key], None
        qa_id = create_kwargs.get("qa_id")
        if not qa_id:
            return None, "no gym env yet for this trajectory: call search first"
        status, body = _post(f"{self.gym_url}/v1/envs", {"qaId": qa_id}, self.timeout)
        if status != 201:
            return None, f"gym error {status}: {json.dumps(body)[:200]}"
        _ENVS[key] = body["envId"]
        return body["envId"], None

    async def execute(self, instance_id, parameters, **kwargs):
        agent_data = kwargs.get("agent_data")
        key = getattr(agent_data, "request_id", None) or instance_id
        env_id, err = self._env(key, self._instances.get(instance_id, {}))
        if err:
            return ToolResponse(text=err), 0.0, {"error": err}
        if self.action == "search":
            q = parameters.get("query")
            if q is None and isinstance(parameters.get("query_list"), list) and parameters["query_list"]:
                q = parameters["query_list"][0]
            args = {"query": str(q or "")}
        else:
            args = {"url": str(parameters.get("url", ""))}
        # The gym's hermes protocol reads the call from the turn's text, as the model wrote it.
        action = "<tool_call>\n" + json.dumps({"name": self.action, "arguments": args}) + "\n</tool_call>"
        status, step = _post(f"{self.gym_url}/v1/envs/{env_id}/step", {"action": action}, self.timeout)
        if status != 200:
            return ToolResponse(text=f"gym error {status}"), 0.0, {"error": status}
        return ToolResponse(text=_observation_text(step)), 0.0, {"turn": step.get("metrics", {}).get("turn")}

    async def calc_reward(self, instance_id, **kwargs):
        """The gym's F1 for kwargs['answer'] on this trajectory's env (closes it)."""
        agent_data = kwargs.get("agent_data")
        key = getattr(agent_data, "request_id", None) or kwargs.get("trajectory") or instance_id
        env_id = _ENVS.pop(key, None)
        if env_id is None:
            env_id, err = self._env(key, self._instances.get(instance_id, {}))
            _ENVS.pop(key, None)
            if err:
                return 0.0
        status, step = _post(f"{self.gym_url}/v1/envs/{env_id}/step", {"action": f"<answer>{kwargs.get('answer', '')}</answer>"}, self.timeout)
        _post(f"{self.gym_url}/v1/envs/{env_id}", None, self.timeout, method="DELETE")
        return float(step.get("metrics", {}).get("f1", 0.0)) if status == 200 else 0.0

    async def release(self, instance_id, **kwargs):
        self._instances.pop(instance_id, None)  # the trajectory's env stays open for its next call


def final_answer(solution_str):
    m = re.findall(r"<answer>(.*?)</answer>", solution_str, re.S)
    return m[-1].strip() if m else None


def compute_score(data_source, solution_str, ground_truth, extra_info=None, gym_url="http://127.0.0.1:8000", timeout=30):
    """verl custom reward: the gym's F1 of the response's last <answer> for the row's qa_id (0 without an answer)."""
    answer = final_answer(solution_str)
    qa_id = (extra_info or {}).get("qa_id")
    if answer is None or not qa_id:
        return 0.0
    status, env = _post(f"{gym_url.rstrip('/')}/v1/envs", {"qaId": qa_id}, timeout)
    if status != 201:
        raise RuntimeError(f"gym {gym_url} answered {status}: {json.dumps(env)[:200]}")
    status, step = _post(f"{gym_url.rstrip('/')}/v1/envs/{env['envId']}/step", {"action": f"<answer>{answer}</answer>"}, timeout)
    _post(f"{gym_url.rstrip('/')}/v1/envs/{env['envId']}", None, timeout, method="DELETE")
    return float(step.get("metrics", {}).get("f1", 0.0))
