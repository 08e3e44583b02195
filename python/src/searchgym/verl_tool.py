"""searchgym.verl_tool: the whole SearchGym.ts gym inside verl's agent loop — the package's one copy, which
`searchgym world export --format verl` writes next to the data as searchgym_verl_tool.py (Python 3 standard library
only; it imports nothing from searchgym, so the copy runs alone). The model's search and access calls are played on the
gym's HTTP env API (POST /v1/envs, /v1/envs/{id}/step, DELETE /v1/envs/{id}); the answer is scored by the gym itself
(its F1), not by a copy of the metric.

Lifecycle, as verl b178a3c calls a tool (verl/tools/base_tool.py:46-93: create / execute / calc_reward / release):
  verl/experimental/agent_loop/tool_agent_loop.py:427-442 creates and releases a tool instance around EVERY call
  (release in a `finally`), and nothing tells a tool that its trajectory ended; calc_reward is never called
  (only verl's gsm8k and geo3k tools call theirs, from their own execute). So no env outlives a call: execute opens a
  fresh env for the trajectory's question, replays the trajectory's earlier actions on it (the same observations, budgets
  and turn count as one long-lived env), steps the new action, and release closes it. The trajectory's actions live in
  agent_data.extra_fields (tool_agent_loop.py:55-56, :92: per-trajectory tool session data, dropped with the
  trajectory), its calls one at a time in their order (tool_agent_loop.py:285-292 runs a turn's calls concurrently).
  Each env is created with idleSeconds = env_idle_seconds (default 60): if a worker dies mid-call, the gym reaps its env
  within about that (its /health counts reaped envs). The price: a trajectory of n calls steps n(n+1)/2 times.
Non-blocking: every HTTP call runs on this module's thread pool (urllib in a thread; verl's own SearchTool offloads
  likewise, verl/tools/search_tool.py:101-113, :251-253), so the agent loop's event loop never waits on the gym. A thread
  runs one HTTP call and is free again: a create the gym refuses for its env cap (429 env.limit) waits on the event loop
  (asyncio.sleep, the gym's Retry-After, else a backoff) for up to `env_wait_seconds`, never in a pool thread — a wait
  that held a thread would, once the pool's 64 threads all waited, leave no thread for the steps and closes that free
  envs (every trajectory of a worker then stalls until its wait runs out). A create whose caller is cancelled meanwhile
  closes the env it got.
First call access: the question comes from the row's tools_kwargs, which verl hands every call as agent_data.tools_kwargs
  (tool_agent_loop.py:144, :288); the export puts qa_id under tools_kwargs.search.create_kwargs, so an access call finds it
  there (the gym lets an episode open a page before any search).
Settings (tool yaml `config`): gym_url (e.g. http://127.0.0.1:8000, or http://HOST:8000/t/TOKEN on a token-protected
  server), action ("search" or "access"), timeout (s per HTTP call, default 30), env_idle_seconds (default 60),
  env_wait_seconds (how long a call waits for a free env while the gym is full, default 600).
Importable on every Ray worker (verl imports the tool by module name, verl/tools/utils/tool_registry.py:68-79, and the
  reward function by path, verl/utils/import_utils.py:87-130): ship the exported file with Ray, on the launch command
  +ray_kwargs.ray_init.runtime_env.py_modules=[$DATA/searchgym_verl_tool.py] (merged into ray.init's runtime_env,
  verl/trainer/main_ppo.py:64-77; ray_init is verl/trainer/config/ppo_trainer.yaml:314) with
  custom_reward_function.path=pkg://searchgym_verl_tool (import_utils.py:83, :106-108); or `pip install ./python` on
  every node and name searchgym.verl_tool.SearchGymTool / pkg://searchgym.verl_tool. A driver-only PYTHONPATH reaches
  no worker on another node.
The reward: compute_score() below is verl's custom_reward_function (.name=compute_score, gym_url in
  custom_reward_function.reward_kwargs, verl/trainer/ppo/reward.py:80-96); see its docstring.
"""
import asyncio
import concurrent.futures
import json
import random
import re
import time
import urllib.error
import urllib.request
import uuid
from collections import OrderedDict

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

_ENVS = {}  # tool instance id -> the gym env its execute opened and its release closes (empty between calls)
# Trajectories of callers that pass no agent_data with extra_fields (keyed by request id, else instance id); bounded.
_TRAJECTORIES = OrderedDict()
_MAX_TRAJECTORIES = 4096
# verl runs hundreds of trajectories per agent-loop worker; their calls wait on the gym here, never on the event loop.
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="searchgym-verl-http")
_RETRY = (0.05, 2.0)  # backoff of a create refused for the env cap without a Retry-After: first wait, longest wait (s)
_ENV_WAIT = 600  # default seconds a create waits for a free env (env_wait_seconds; compute_score's wait_seconds)


class _Answer(tuple):
    """(status, JSON body) of one HTTP call; .retry_after: the server's Retry-After in seconds, or None."""

    retry_after = None


def _answer(status, body, headers=None):
    a = _Answer((status, body))
    v = headers.get("Retry-After") if headers is not None else None
    try:
        a.retry_after = float(v) if v is not None else None
    except ValueError:  # an HTTP date: not honoured, the backoff decides
        pass
    return a


def _request(url, body, timeout, method="POST"):
    """(status, JSON body) of one HTTP call (with .retry_after); status 0 when the gym could not be reached."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return _answer(r.status, json.loads(r.read() or b"null"), r.headers)
    except urllib.error.HTTPError as e:
        try:
            return _answer(e.code, json.loads(e.read()), e.headers)
        except ValueError:
            return _answer(e.code, None, e.headers)
    except (urllib.error.URLError, OSError) as e:
        return _answer(0, {"error": {"code": "unreachable", "message": f"{url}: {getattr(e, 'reason', e)}"}})


def _pause(answer, backoff):
    """How long to wait before asking again after a 429: the gym's Retry-After (with up to 20 % jitter on top, so that
    the callers it refused together do not come back together), else the backoff."""
    ra = getattr(answer, "retry_after", None)
    return ra * (1 + 0.2 * random.random()) if ra is not None and ra >= 0 else backoff


def _create_body(qa_id, idle_seconds):
    return {"qaId": qa_id, **({} if idle_seconds is None else {"idleSeconds": idle_seconds})}


def _create(gym_url, qa_id, timeout, idle_seconds=None, wait_seconds=_ENV_WAIT):
    """POST /v1/envs, waiting (in the calling thread: compute_score's, on verl's reward executor) for a slot while the
    gym answers 429 env.limit, for up to `wait_seconds`."""
    deadline, backoff = time.monotonic() + wait_seconds, _RETRY[0]
    while True:
        answer = _request(f"{gym_url}/v1/envs", _create_body(qa_id, idle_seconds), timeout)
        pause = _pause(answer, backoff)
        if answer[0] != 429 or time.monotonic() + pause > deadline:
            return answer
        time.sleep(pause)
        backoff = min(2 * backoff, _RETRY[1])


def _close(gym_url, env_id, timeout):
    _request(f"{gym_url}/v1/envs/{env_id}", None, timeout, method="DELETE")  # an env already gone is fine


def _error_text(status, body):
    err = (body or {}).get("error") if isinstance(body, dict) else None
    return f"gym error {status}: {err.get('code')}: {err.get('message')}" if isinstance(err, dict) else f"gym error {status}"


def _observation_text(step):
    return "\n".join(m.get("content", "") for m in step.get("observation", []) if m.get("role") in ("tool", "user"))


class _Trajectory:
    """One trajectory's question and the actions the gym accepted, in order; its calls run one at a time."""

    def __init__(self):
        self.qa_id = None
        self.actions = []
        self.lock = asyncio.Lock()


def _trajectory(agent_data, instance_id):
    extra = getattr(agent_data, "extra_fields", None)
    if isinstance(extra, dict):  # verl: per-trajectory session data, gone with the trajectory
        return extra.setdefault("searchgym", _Trajectory())
    key = getattr(agent_data, "request_id", None) or instance_id
    t = _TRAJECTORIES.pop(key, None) or _Trajectory()
    _TRAJECTORIES[key] = t
    while len(_TRAJECTORIES) > _MAX_TRAJECTORIES:
        _TRAJECTORIES.popitem(last=False)
    return t


def _qa_id(create_kwargs, agent_data, traj):
    """The trajectory's question: this call's create_kwargs, else any tool's in the row's tools_kwargs (an access call
    has none of its own), else the one an earlier call of the trajectory used."""
    if create_kwargs.get("qa_id"):
        return create_kwargs["qa_id"]
    for kw in (getattr(agent_data, "tools_kwargs", None) or {}).values():
        qa_id = ((kw or {}).get("create_kwargs") or {}).get("qa_id") if isinstance(kw, dict) else None
        if qa_id:
            return qa_id
    return traj.qa_id


NO_QA_ID = ("searchgym tool: this trajectory names no question (no qa_id in its tools_kwargs): give every row "
            "extra_info.tools_kwargs.search.create_kwargs.qa_id, as `searchgym world export --format verl` writes")


class SearchGymTool(BaseTool):
    def __init__(self, config, tool_schema=None):
        super().__init__(config, tool_schema)
        self.gym_url = config["gym_url"].rstrip("/")
        self.action = config.get("action", "search")
        self.timeout = config.get("timeout", 30)
        self.env_idle_seconds = config.get("env_idle_seconds", 60)
        self.env_wait_seconds = config.get("env_wait_seconds", _ENV_WAIT)
        self._instances = {}

    async def _http(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(_POOL, fn, *args)

    async def _create(self, qa_id):
        """POST /v1/envs; while the gym is full (429) the wait is an asyncio.sleep on the event loop, so no pool thread
        is held by a caller that waits (see the module docstring)."""
        url, body = f"{self.gym_url}/v1/envs", _create_body(qa_id, self.env_idle_seconds)
        deadline, backoff = time.monotonic() + self.env_wait_seconds, _RETRY[0]
        while True:
            fut = asyncio.get_running_loop().run_in_executor(_POOL, _request, url, body, self.timeout)
            try:
                answer = await asyncio.shield(fut)
            except asyncio.CancelledError:
                # The caller is gone; the create may still succeed in its thread: close what it makes.
                fut.add_done_callback(self._close_orphan)
                raise
            pause = _pause(answer, backoff)
            if answer[0] != 429 or time.monotonic() + pause > deadline:
                return answer
            await asyncio.sleep(pause)
            backoff = min(2 * backoff, _RETRY[1])

    def _close_orphan(self, fut):
        if fut.cancelled() or fut.exception() is not None:
            return
        status, env = fut.result()
        if status == 201:
            _POOL.submit(_close, self.gym_url, env["envId"], self.timeout)

    async def create(self, instance_id=None, **kwargs):
        instance_id = instance_id or str(uuid.uuid4())
        self._instances[instance_id] = kwargs.get("create_kwargs", {}) or {}
        return instance_id, ToolResponse()

    async def _replayed_env(self, instance_id, traj, qa_id):
        """A fresh env for qa_id with the trajectory's earlier actions played on it: (env id, None) or (None, error)."""
        status, env = await self._create(qa_id)
        if status != 201:
            return None, _error_text(status, env)
        env_id = env["envId"]
        _ENVS[instance_id] = env_id  # closed by release (or by calc_reward), whatever happens next
        for a in traj.actions:
            status, step = await self._http(_request, f"{self.gym_url}/v1/envs/{env_id}/step", {"action": a}, self.timeout)
            if status != 200:
                return None, _error_text(status, step)
        return env_id, None

    async def execute(self, instance_id, parameters, **kwargs):
        agent_data = kwargs.get("agent_data")
        traj = _trajectory(agent_data, instance_id)
        qa_id = _qa_id(self._instances.get(instance_id, {}), agent_data, traj)
        if not qa_id:
            return ToolResponse(text=NO_QA_ID), 0.0, {"error": "no_qa_id"}
        if self.action == "search":
            q = parameters.get("query")
            if q is None and isinstance(parameters.get("query_list"), list) and parameters["query_list"]:
                q = parameters["query_list"][0]
            args = {"query": str(q or "")}
        else:
            args = {"url": str(parameters.get("url", ""))}
        # The gym's hermes protocol reads the call from the turn's text, as the model wrote it.
        action = "<tool_call>\n" + json.dumps({"name": self.action, "arguments": args}) + "\n</tool_call>"
        async with traj.lock:
            traj.qa_id = qa_id
            env_id, err = await self._replayed_env(instance_id, traj, qa_id)
            if err:
                return ToolResponse(text=err), 0.0, {"error": err}
            status, step = await self._http(_request, f"{self.gym_url}/v1/envs/{env_id}/step", {"action": action}, self.timeout)
            if status != 200:
                err = _error_text(status, step)
                return ToolResponse(text=err), 0.0, {"error": err}
            traj.actions.append(action)
        return ToolResponse(text=_observation_text(step)), 0.0, {"turn": step.get("metrics", {}).get("turn")}

    async def calc_reward(self, instance_id, **kwargs):
        """The gym's F1 for kwargs['answer'] after this trajectory's actions (0.0 when the gym cannot score it). verl
        never calls it (see the module docstring); compute_score is verl's reward."""
        agent_data = kwargs.get("agent_data")
        traj = _trajectory(agent_data, instance_id)
        qa_id = _qa_id(self._instances.get(instance_id, {}), agent_data, traj)
        if not qa_id:
            return 0.0
        async with traj.lock:
            env_id, err = await self._replayed_env(instance_id, traj, qa_id)
            try:
                if err:
                    return 0.0
                status, step = await self._http(_request, f"{self.gym_url}/v1/envs/{env_id}/step", {"action": f"<answer>{kwargs.get('answer', '')}</answer>"}, self.timeout)
                return float(step.get("metrics", {}).get("f1", 0.0)) if status == 200 else 0.0
            finally:
                await self._release_env(instance_id)

    async def _release_env(self, instance_id):
        env_id = _ENVS.pop(instance_id, None)
        if env_id is not None:
            await self._http(_close, self.gym_url, env_id, self.timeout)

    async def release(self, instance_id, **kwargs):
        """Close the env this instance's execute opened (verl calls release after every call, in a finally)."""
        self._instances.pop(instance_id, None)
        await self._release_env(instance_id)


def final_answer(solution_str):
    m = re.findall(r"<answer>(.*?)</answer>", solution_str, re.S)
    return m[-1].strip() if m else None


def compute_score(data_source, solution_str, ground_truth, extra_info=None, gym_url="http://127.0.0.1:8000", timeout=30,
                  wait_seconds=_ENV_WAIT, **_):
    """verl custom reward: the gym's F1 of the response's last <answer> for the row's qa_id (0.0 without an answer or
    qa_id).

    How the reward is obtained: the trajectory's own envs are closed call by call (SearchGymTool.release), and verl
    hands a reward function no trajectory id (verl/experimental/reward_loop/reward_manager/naive.py:42-84), so this opens
    its own env for extra_info["qa_id"], steps `<answer>...</answer>` on it, reads the env's F1 (metrics.f1 — what
    `searchgym score` gives for that answer) and closes the env. Reward terms that depend on the searches (retrieval,
    format penalties, process, cost) are therefore not part of it. It never raises because an env is gone: a create
    refused for the env cap waits for a slot (the gym's Retry-After between tries, up to `wait_seconds`, default 600; in
    this call's own thread, verl's reward executor, which holds no env meanwhile), and an env that expired or vanished before its answer
    is made again (3 tries); an answer the gym refuses as input (400, 413) scores 0.0. It raises only when the gym cannot score at all (unreachable, refusing, or full past the
    wait): a silent 0 would train on a reward that was never computed. Synchronous (stdlib urllib): verl runs a
    synchronous reward function on an executor (naive.py:75-84).
    """
    answer = final_answer(solution_str)
    qa_id = (extra_info or {}).get("qa_id")
    if answer is None or not qa_id:
        return 0.0
    url = gym_url.rstrip("/")
    last = None
    for _ in range(3):
        status, env = _create(url, qa_id, timeout, idle_seconds=max(1, timeout), wait_seconds=wait_seconds)
        if status != 201:
            raise RuntimeError(f"gym {url} cannot score: POST /v1/envs answered {_error_text(status, env)}")
        try:
            status, step = _request(f"{url}/v1/envs/{env['envId']}/step", {"action": f"<answer>{answer}</answer>"}, timeout)
        finally:
            _close(url, env["envId"], timeout)
        if status == 200:
            return float(step.get("metrics", {}).get("f1", 0.0))
        if status in (400, 413):  # the answer itself refused (e.g. longer than the gym's --max-action-chars): no F1
            return 0.0
        last = _error_text(status, step)
        if status not in (404, 409):  # gone (expired, lost with a restarted worker) or busy: a fresh env scores it
            break
    raise RuntimeError(f"gym {url} cannot score the answer: {last}")
