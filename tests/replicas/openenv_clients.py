"""tests/replicas/openenv_clients: OpenEnv's clients, replicated from its code, playing whole episodes against a real
`searchgym gym serve` (its OpenEnv face) — run by tests/openenv.test.ts with a fixture of the oracle's walks.

Written from meta-pytorch/OpenEnv at commit 685de411e5f77286b0fd94798d42c4467cf8a1bc (2026-05-01):
- WebSocket, EnvClient (src/openenv/core/env_client.py): the URL :129-132 (convert_to_ws_url(base_url) + "/ws", with
  core/utils.py:65-82), messages :212-237 (one JSON text per message; a reply {"type": "error"} raises
  RuntimeError("Server error: <message> (code: <code>)")), :372-419 (reset {"type": "reset", "data": kwargs}, step
  {"type": "step", "data": payload}, state {"type": "state"}; each answer's "data" parsed), :193-205 (disconnect sends
  {"type": "close"}). GenericEnvClient (core/generic_client.py:60-85 of the file): the action dict sent as is, the
  result {observation, reward, done} read from data, the state as is. The server side the replies come from:
  core/env_server/http_server.py:1298-1512 and serialization.py:136-171.
- MCPToolClient (core/mcp_client.py) over /ws: :241-255 (_step_payload: {"type": "list_tools"} / {"type":
  "call_tool", "tool_name", "arguments"}), :257-303 (_parse_result: "tools" in the observation → tool list, "tool_name"
  → a tool call's result), :232-239 (list_tools), :426-450 (call_tool returns the observation's result).
- MCPToolClient's production mode over HTTP POST /mcp (core/mcp_client.py:132-181, :406-424, :312-339): JSON-RPC 2.0
  {"jsonrpc", "method", "params", "id"}, openenv/session/create → result.session_id, tools/call with the session_id,
  openenv/session/close; an "error" in the answer raises.
- HTTP validation, `openenv validate --url` (src/openenv/cli/_validation.py:102-427): GET /openapi.json (info.version,
  paths), /health ({"status": "healthy"}), /metadata (name, description), /schema (action, observation, state
  objects), POST /mcp {} (a JSON-RPC answer), and the mode's endpoint set (/reset, /step, /state in simulation mode).
- HTTP episodes: OpenEnv at this commit has no HTTP episode client (its HTTPEnvClient was dropped, commit 9385f659);
  its server's POST /reset and /step take ResetRequest {seed, episode_id, ...} and StepRequest {action, ...} and answer
  {observation, reward, done} (env_server/types.py:94-166, http_server.py:1074-1157). The replica sends those shapes,
  plus the session_id the gym's HTTP sessions need (docs/openenv.md).
The WebSocket transport (RFC 6455 framing) is searchgym._ws from python/src: the protocol above is the replica's own.

Usage: python3 tests/replicas/openenv_clients.py FIXTURE.json  →  prints one JSON report; exit 1 when a check fails.
"""
from __future__ import annotations

import json
import os
import sys
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "src"))
from searchgym._ws import HandshakeError, WebSocket  # noqa: E402  (transport only)

Json = Dict[str, Any]


def convert_to_ws_url(url: str) -> str:  # core/utils.py:65-82
    ws_url = url.rstrip("/")
    if ws_url.startswith("http://"):
        ws_url = "ws://" + ws_url[7:]
    elif ws_url.startswith("https://"):
        ws_url = "wss://" + ws_url[8:]
    elif not ws_url.startswith("ws://") and not ws_url.startswith("wss://"):
        ws_url = "ws://" + ws_url
    return ws_url


class GenericEnvClient:
    """EnvClient + GenericEnvClient, synchronous (what SyncEnvClient gives): dict actions, dict observations."""

    def __init__(self, base_url: str, message_timeout_s: float = 60.0):
        self._ws_url = f"{convert_to_ws_url(base_url)}/ws"
        self._timeout = message_timeout_s
        self._ws: Optional[WebSocket] = None

    def connect(self) -> "GenericEnvClient":
        if self._ws is None:
            try:
                self._ws = WebSocket.connect(self._ws_url, timeout=10.0, max_size=100 << 20)
            except Exception as e:
                raise ConnectionError(f"Failed to connect to {self._ws_url}: {e}") from e
            self._ws.settimeout(self._timeout)
        return self

    def _send_and_receive(self, message: Json) -> Json:
        self.connect()
        assert self._ws is not None
        self._ws.send_text(json.dumps(message))
        response = json.loads(self._ws.recv())
        if response.get("type") == "error":
            error_data = response.get("data", {})
            raise RuntimeError(f"Server error: {error_data.get('message', 'Unknown error')} (code: {error_data.get('code', 'UNKNOWN')})")
        return response

    def _step_payload(self, action: Any) -> Json:  # generic_client.py (file lines 60-87)
        if isinstance(action, dict):
            return action
        return dict(action)

    def _parse_result(self, payload: Json) -> Tuple[Json, Optional[float], bool]:  # StepResult(observation, reward, done)
        return payload.get("observation", {}), payload.get("reward"), payload.get("done", False)

    def reset(self, **kwargs: Any) -> Tuple[Json, Optional[float], bool]:
        return self._parse_result(self._send_and_receive({"type": "reset", "data": kwargs}).get("data", {}))

    def step(self, action: Any) -> Tuple[Json, Optional[float], bool]:
        return self._parse_result(self._send_and_receive({"type": "step", "data": self._step_payload(action)}).get("data", {}))

    def state(self) -> Json:
        return self._send_and_receive({"type": "state"}).get("data", {})

    def close(self) -> None:
        if self._ws is not None:
            try:
                self._ws.send_text(json.dumps({"type": "close"}))
            except Exception:
                pass
            self._ws.close()
            self._ws = None


class MCPToolClient(GenericEnvClient):
    """MCPToolClient over /ws (simulation): list_tools and call_tool as step actions."""

    def _step_payload(self, action: Any) -> Json:  # mcp_client.py:241-255
        kind, name, arguments = action
        if kind == "list_tools":
            return {"type": "list_tools"}
        return {"type": "call_tool", "tool_name": name, "arguments": arguments}

    def list_tools(self) -> List[Json]:  # :232-239 and :257-275
        obs, _, _ = self.step(("list_tools", None, None))
        return [{"name": t.get("name", ""), "description": t.get("description", ""), "input_schema": t.get("input_schema", t.get("inputSchema", {}))} for t in obs.get("tools", [])] if "tools" in obs else []

    def call_tool(self, name: str, **kwargs: Any) -> Tuple[Any, Optional[float], bool]:  # :426-450
        obs, reward, done = self.step(("call_tool", name, kwargs))
        if "tool_name" in obs:  # :277-290
            if obs.get("error"):
                raise RuntimeError(f"Tool '{name}' failed: {obs['error']}")
            result = obs.get("result")
            if isinstance(result, dict) and "data" in result:
                result = result["data"]
            return result, reward, done
        return obs, reward, done


def http(method: str, url: str, body: Optional[Json] = None, timeout: float = 30.0) -> Tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"} if data is not None else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, raw.decode("utf-8", "replace")


class MCPProductionClient:
    """MCPToolClient in production mode: HTTP POST /mcp JSON-RPC with a persistent session (mcp_client.py:132-181)."""

    def __init__(self, base_url: str, session_params: Optional[Json] = None):
        self._url = base_url.rstrip("/") + "/mcp"  # _production_mcp_url :132-137
        self._id = 0
        self._session: Optional[str] = None
        self._params = session_params or {}
        self.observation: Json = {}

    def _request(self, method: str, params: Optional[Json] = None) -> Json:  # :147-163 (raise_for_status, .json())
        self._id += 1
        status, data = http("POST", self._url, {"jsonrpc": "2.0", "method": method, "params": params or {}, "id": self._id})
        if status != 200:
            raise RuntimeError(f"HTTP {status}: {data}")
        return data

    def _ensure_session(self) -> str:  # :165-181
        if self._session is None:
            data = self._request("openenv/session/create", self._params)
            if "error" in data:
                raise RuntimeError(f"Failed to create MCP session: {data['error'].get('message')}")
            self._session = data.get("result", {}).get("session_id")
            self.observation = data.get("result", {}).get("observation", {})
            if not self._session:
                raise RuntimeError("Failed to create MCP session: missing session_id")
        return self._session

    def call_tool(self, name: str, **kwargs: Any) -> Json:  # :406-424
        sid = self._ensure_session()
        data = self._request("tools/call", {"name": name, "arguments": kwargs, "session_id": sid})
        if "error" in data:
            raise RuntimeError(f"Tool '{name}' failed: {data['error'].get('message')}")
        return data.get("result")

    def close(self) -> None:  # :312-339
        if self._session is not None:
            self._request("openenv/session/close", {"session_id": self._session})
            self._session = None


def validate_running_environment(base_url: str) -> Json:
    """_validation.py:102-427: the criteria and whether each passed."""
    url = base_url.rstrip("/")
    crit: Dict[str, bool] = {}
    s, o = http("GET", f"{url}/openapi.json")
    paths = o.get("paths", {}) if isinstance(o, dict) else {}
    crit["openapi_version_available"] = s == 200 and isinstance(o, dict) and isinstance(o.get("info"), dict) and isinstance(o["info"].get("version"), str)
    s, h = http("GET", f"{url}/health")
    crit["health_endpoint"] = s == 200 and isinstance(h, dict) and h.get("status") == "healthy"
    s, m = http("GET", f"{url}/metadata")
    crit["metadata_endpoint"] = s == 200 and isinstance(m, dict) and isinstance(m.get("name"), str) and isinstance(m.get("description"), str)
    s, sc = http("GET", f"{url}/schema")
    crit["schema_endpoint"] = s == 200 and isinstance(sc, dict) and all(isinstance(sc.get(k), dict) for k in ("action", "observation", "state"))
    s, mc = http("POST", f"{url}/mcp", {})
    crit["mcp_endpoint"] = s == 200 and isinstance(mc, dict) and mc.get("jsonrpc") == "2.0"
    # :383-410 — the mode from the OpenAPI paths (keys are the server's own, so under a prefix they carry it).
    keys = {p.rsplit("/", 1)[-1] for p in paths}
    crit["mode_endpoint_consistency"] = bool(paths) and ({"reset", "step", "state"} <= keys)
    return {"passed": all(crit.values()), "criteria": crit, "standard_version": o.get("info", {}).get("version") if isinstance(o, dict) else None}


# -- the scenarios --------------------------------------------------------------------------------------------------
def tool_call_text(name: str, **arguments: Any) -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def oracle_steps(walk: Json, form: str) -> List[Json]:
    """The oracle's turns as actions: text (Hermes tags) or named tool calls."""
    out: List[Json] = []
    for s in walk["searches"]:
        calls = [("search", {"query": s["query"]})] + ([("access", {"url": s["found"]})] if s.get("found") else [])
        for name, args in calls:
            out.append({"text": tool_call_text(name, **args)} if form == "text" else {"tool_name": name, "arguments": args})
    out.append({"text": f"<answer>{walk['answer']}</answer>"} if form == "text" else {"tool_name": "answer", "arguments": {"answer": walk["answer"]}})
    return out


def env_api_episode(base: str, qa_id: str, actions: List[Any], options: Optional[Json] = None) -> List[Tuple[float, bool, bool, Optional[str]]]:
    """The same actions through the env API (POST /v1/envs, /step, DELETE): each step's reward, terminated, truncated, stopReason."""
    s, made = http("POST", f"{base}/v1/envs", {"qaId": qa_id, **({"options": options} if options else {})})
    assert s == 201, made
    out = []
    try:
        for a in actions:
            s, r = http("POST", f"{base}/v1/envs/{made['envId']}/step", {"action": a})
            assert s == 200, r
            out.append((r["reward"], r["terminated"], r["truncated"], r.get("stopReason")))
            if r["terminated"] or r["truncated"]:
                break
    finally:
        http("DELETE", f"{base}/v1/envs/{made['envId']}")
    return out


def main(path: str) -> int:
    with open(path, encoding="utf-8") as f:
        fx = json.load(f)
    base = fx["url"].rstrip("/")
    walks: List[Json] = fx["walks"]
    report: Json = {"walks": len(walks), "failures": []}

    def fail(what: str) -> None:
        report["failures"].append(what)

    # 1. WebSocket, GenericEnvClient: every walk, alternating the action forms; reward and done per step as the env API's.
    ws_rewards, ws_steps = [], 0
    env = GenericEnvClient(base)
    try:
        for i, w in enumerate(walks):
            obs, reward, done = env.reset(qa_id=w["qa_id"])
            if obs.get("question") != w["question"] or reward is not None or done:
                fail(f"ws reset {w['qa_id']}: {obs.get('question')!r} reward={reward} done={done}")
            if any(k in json.dumps(obs) for k in ("signal/", '"gold"')):
                fail(f"ws reset {w['qa_id']}: a gold signal in the observation")
            form = "text" if i % 2 == 0 else "tool"
            for a in oracle_steps(w, form):
                obs, reward, done = env.step(a)
                ws_steps += 1
                if any(k.startswith("signal/") for k in obs.get("metrics", {})) or "gold" in obs.get("logs", {}):
                    fail(f"ws step {w['qa_id']}: a gold signal in the observation")
                if done:
                    break
            ws_rewards.append(reward)
            st = env.state()
            if not (st.get("done") and st.get("qa_id") == w["qa_id"] and st.get("reward") == reward and st.get("step_count") == len(oracle_steps(w, form))):
                fail(f"ws state {w['qa_id']}: {st}")
            if obs.get("metrics", {}).get("f1") != 1:
                fail(f"ws {w['qa_id']}: f1 {obs.get('metrics', {}).get('f1')}")
        # A wrong answer scores 0.
        env.reset(qa_id=walks[0]["qa_id"])
        _, wrong_ws, wrong_done = env.step({"text": "<answer>Nowhere At All</answer>"})
        report["ws_wrong"] = [wrong_ws, wrong_done]
        # A step after the end: OpenEnv's error reply.
        try:
            env.step({"text": "<answer>again</answer>"})
            fail("ws: a step after done was answered")
        except RuntimeError as e:
            report["ws_after_done"] = str(e)
        # Budgets: 2 turns; the same actions through the env API end the same way.
        env.reset(qa_id=walks[1]["qa_id"], options={"budgets": {"maxTurns": 2}})
        seq = []
        for a in ["I am not sure.", "still thinking"]:
            obs, reward, done = env.step({"text": a})
            seq.append((reward, obs["terminated"], obs["truncated"], obs["stop_reason"]))
        report["ws_budget"] = seq
        report["env_api_budget"] = env_api_episode(base, walks[1]["qa_id"], ["I am not sure.", "still thinking"], {"budgets": {"maxTurns": 2}})
        # The default budget: 16 turns of searching.
        env.reset(qa_id=walks[2]["qa_id"])
        n = 0
        done = False
        while not done and n < 40:
            obs, reward, done = env.step({"tool_name": "search", "arguments": {"query": f"q{n}"}})
            n += 1
        report["ws_default_budget"] = [n, obs["truncated"], obs["stop_reason"], reward]
    finally:
        env.close()
    report["ws_rewards"] = ws_rewards
    report["ws_steps"] = ws_steps

    # 2. The env API plays the same actions to the same rewards (first 5 walks, both forms' text).
    report["env_api_rewards"] = [env_api_episode(base, w["qa_id"], [a["text"] for a in oracle_steps(w, "text")])[-1][0] for w in walks[:5]]

    # 3. MCPToolClient over /ws: the tools, then a walk by call_tool.
    mcp = MCPToolClient(base)
    try:
        report["mcp_ws_tools"] = [t["name"] for t in mcp.list_tools()]
        w = walks[3]
        mcp.reset(qa_id=w["qa_id"])
        last: Tuple[Any, Optional[float], bool] = (None, None, False)
        for a in oracle_steps(w, "tool"):
            last = mcp.call_tool(a["tool_name"], **a["arguments"])
        report["mcp_ws_walk"] = [last[1], last[2]]
    finally:
        mcp.close()

    # 4. HTTP episodes (POST /reset, /step, GET /state with the session).
    http_rewards = []
    for i, w in enumerate(walks):
        s, r = http("POST", f"{base}/reset", {"qa_id": w["qa_id"]})
        if s != 200:
            fail(f"http reset {w['qa_id']}: {s} {r}")
            continue
        sid = r["observation"]["session_id"]
        for a in oracle_steps(w, "tool" if i % 2 == 0 else "text"):
            s, r = http("POST", f"{base}/step", {"action": a, "session_id": sid})
            if s != 200:
                fail(f"http step {w['qa_id']}: {s} {r}")
                break
            if r["done"]:
                break
        http_rewards.append(r.get("reward") if s == 200 else None)
        s, st = http("GET", f"{base}/state?session_id={sid}")
        if s != 200 or not st.get("done") or st.get("reward") != http_rewards[-1]:
            fail(f"http state {w['qa_id']}: {s} {st}")
    report["http_rewards"] = http_rewards
    s, r = http("POST", f"{base}/reset", {"qa_id": walks[0]["qa_id"]})
    sid = r["observation"]["session_id"]
    s, r = http("POST", f"{base}/step", {"action": {"text": "<answer>Nowhere At All</answer>"}, "session_id": sid})
    report["http_wrong"] = [r["reward"], r["done"]]
    s, r = http("POST", f"{base}/reset", {"qa_id": walks[1]["qa_id"], "options": {"budgets": {"maxTurns": 2}}})
    sid = r["observation"]["session_id"]
    seq = []
    for a in ["I am not sure.", "still thinking"]:
        s, r = http("POST", f"{base}/step", {"action": {"text": a}, "session_id": sid})
        seq.append((r["reward"], r["observation"]["terminated"], r["observation"]["truncated"], r["observation"]["stop_reason"]))
    report["http_budget"] = seq

    # 5. MCP production mode over HTTP /mcp: a walk in a session.
    prod = MCPProductionClient(base, {"qa_id": walks[4]["qa_id"]})
    res: Json = {}
    for a in oracle_steps(walks[4], "tool"):
        res = prod.call_tool(a["tool_name"], **a["arguments"])
    report["mcp_http_walk"] = res.get("structured_content")
    report["mcp_http_question"] = prod.observation.get("question") == walks[4]["question"]
    prod.close()

    # 6. `openenv validate --url`: under /openenv every criterion; at the root all but /health (the env API's own).
    report["validate_prefixed"] = validate_running_environment(f"{base}/openenv")
    report["validate_root"] = validate_running_environment(base)

    # 7. A refused handshake (a foreign Origin): no socket.
    try:
        WebSocket.connect(f"{convert_to_ws_url(base)}/ws", headers={"Origin": "http://evil.example"}).close()
        fail("ws: a foreign Origin was let in")
    except HandshakeError as e:
        report["ws_foreign_origin"] = [e.status, json.loads(e.body)]

    print(json.dumps(report))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
