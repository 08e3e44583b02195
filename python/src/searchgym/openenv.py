"""searchgym.openenv: a SearchGym world as an OpenEnv environment — the Action / Observation / State models and
SearchGymEnv, the client of `searchgym gym serve`'s OpenEnv face (its WebSocket /ws session protocol).

With `openenv` installed (pip install openenv-core), SearchGymEnv subclasses OpenEnv's EnvClient and the models
subclass its Action / Observation / State, so it is an OpenEnv environment like any other (async; .sync() for a
synchronous wrapper; `openenv` does the transport). Without it, the same names work on the standard library alone:
twins of EnvClient, SyncEnvClient, StepResult and the models, over searchgym._ws (RFC 6455).

    from searchgym.openenv import SearchGymEnv, SearchGymAction
    with SearchGymEnv(base_url="http://127.0.0.1:8000").sync() as env:
        r = env.reset(split="bench", index=0)                  # or qa_id=..., or seed=...
        print(r.observation.question)
        r = env.step(SearchGymAction(tool_name="search", arguments={"query": r.observation.question}))
        r = env.step(SearchGymAction(text="<answer>Paris</answer>"))
        print(r.reward, r.done, r.observation.stop_reason)      # the env API's reward (default F1) and terminated or truncated

An action is the assistant's turn as text (the env's protocol: <tool_call>…</tool_call> or <answer>…</answer>), OpenAI
tool_calls, or one named tool call (search {query}, access {url, page}, answer {answer}). Rewards, budgets and
truncation are the server's, as for every other door of the gym. The token (gym serve --token, $SEARCHGYM_TOKEN) goes
in the URL path (/t/TOKEN/ws): OpenEnv's client sends no headers. Contracts followed (meta-pytorch/OpenEnv at
685de411): core/env_client.py:88-139 (constructor, URL), :212-237 (messages and error replies), :357-419 (_step_payload,
_parse_result, _parse_state, reset/step/state), :459-484 (sync); core/client_types.py:10-23 (StepResult);
core/env_server/types.py:54-197 (models); core/sync_client.py (the synchronous wrapper).
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import threading
import urllib.parse
from typing import Any, Dict, Generic, List, Optional, TypeVar, Union

try:  # OpenEnv installed: be one of its environments.
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient as _EnvClient
    from openenv.core.env_server.types import Action as _Action
    from openenv.core.env_server.types import Observation as _Observation
    from openenv.core.env_server.types import State as _State

    HAVE_OPENENV = True
except ImportError:
    HAVE_OPENENV = False

DEFAULT_URL = "http://127.0.0.1:8000"
Json = Dict[str, Any]

if not HAVE_OPENENV:
    from dataclasses import dataclass

    from ._ws import ConnectionClosed, HandshakeError, WebSocket

    ObsT = TypeVar("ObsT")

    @dataclass
    class StepResult(Generic[ObsT]):  # type: ignore[no-redef]
        """One step's result (OpenEnv's client_types.StepResult): observation, reward, done."""

        observation: ObsT
        reward: Optional[float] = None
        done: bool = False

    class _Model:
        """The little of pydantic's BaseModel the models need: fields from annotations with their defaults, unknown
        fields refused (extra="forbid") unless _extra, model_dump / model_validate."""

        _extra = False
        _mutable_defaults: Dict[str, Any] = {"metadata": dict}

        @classmethod
        def _fields(cls) -> List[str]:
            out: List[str] = []
            for klass in reversed(cls.__mro__):
                for name in getattr(klass, "__annotations__", {}):
                    if not name.startswith("_") and name not in out:
                        out.append(name)
            return out

        def __init__(self, **kw: Any):
            fields = self._fields()
            unknown = [k for k in kw if k not in fields]
            if unknown and not self._extra:
                raise ValueError(f"{type(self).__name__}: unknown field {unknown[0]!r} (fields: {', '.join(fields)})")
            for f in fields:
                if f in kw:
                    v = kw[f]
                elif f in self._mutable_defaults:
                    v = self._mutable_defaults[f]()
                else:
                    v = getattr(type(self), f, None)
                object.__setattr__(self, f, v)
            for k in unknown:
                object.__setattr__(self, k, kw[k])

        def model_dump(self, exclude: Optional[set] = None, exclude_none: bool = False) -> Json:
            out = {k: v for k, v in vars(self).items() if not (exclude and k in exclude)}
            return {k: v for k, v in out.items() if v is not None} if exclude_none else out

        @classmethod
        def model_validate(cls, data: Json) -> "_Model":
            return cls(**data)

        def __eq__(self, other: Any) -> bool:
            return type(self) is type(other) and vars(self) == vars(other)

        def __repr__(self) -> str:
            return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in vars(self).items())})"

    class _Action(_Model):  # type: ignore[no-redef]
        metadata: Dict[str, Any]

    class _Observation(_Model):  # type: ignore[no-redef]
        done: bool = False
        reward: Optional[Union[bool, int, float]] = None
        metadata: Dict[str, Any]

    class _State(_Model):  # type: ignore[no-redef]
        _extra = True
        episode_id: Optional[str] = None
        step_count: int = 0

    def _ws_url(url: str) -> str:
        """OpenEnv's convert_to_ws_url (core/utils.py:65-82)."""
        u = url.rstrip("/")
        if u.startswith("http://"):
            return "ws://" + u[7:]
        if u.startswith("https://"):
            return "wss://" + u[8:]
        return u if u.startswith(("ws://", "wss://")) else "ws://" + u

    class _EnvClient:  # type: ignore[no-redef]
        """OpenEnv's EnvClient on the standard library: async reset / step / state / close over one WebSocket session
        (core/env_client.py:54-484); the socket's blocking calls run on the default executor."""

        def __init__(self, base_url: str, connect_timeout_s: float = 10.0, message_timeout_s: float = 60.0, max_message_size_mb: float = 100.0,
                     provider: Any = None, mode: Optional[str] = None):
            if provider is not None:
                raise ValueError("searchgym.openenv without openenv: no container providers (start `searchgym gym serve` and pass its URL)")
            self._ws_url = f"{_ws_url(base_url)}/ws"
            self._connect_timeout = connect_timeout_s
            self._message_timeout = message_timeout_s
            self._max_message_size = int(max_message_size_mb * 1024 * 1024)
            self._ws: Optional[WebSocket] = None

        async def _io(self, fn: Any, *args: Any) -> Any:
            return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

        async def connect(self) -> "_EnvClient":
            if self._ws is not None:
                return self
            try:
                ws = await self._io(lambda: WebSocket.connect(self._ws_url, timeout=self._connect_timeout, max_size=self._max_message_size))
            except HandshakeError as e:
                raise ConnectionError(f"Failed to connect to {_redact(self._ws_url)}: HTTP {e.status}: {_detail(e.body)}") from None
            except OSError as e:
                raise ConnectionError(f"Failed to connect to {_redact(self._ws_url)}: {e}") from None
            ws.settimeout(self._message_timeout)
            self._ws = ws
            return self

        async def disconnect(self) -> None:
            if self._ws is not None:
                ws, self._ws = self._ws, None
                try:
                    ws.send_text(json.dumps({"type": "close"}))
                except Exception:
                    pass
                await self._io(ws.close)

        async def _send_and_receive(self, message: Json) -> Json:
            if self._ws is None:
                await self.connect()
            ws = self._ws
            assert ws is not None
            try:
                await self._io(ws.send_text, json.dumps(message))
                response = json.loads(await self._io(ws.recv))
            except ConnectionClosed as e:
                self._ws = None
                raise ConnectionError(f"the gym closed the session ({e.code}{': ' + e.reason if e.reason else ''})") from None
            except OSError as e:  # a timeout leaves a frame half read: the session is unusable
                self._ws = None
                raise ConnectionError(f"no answer from the gym within {self._message_timeout} s ({e})") from None
            if response.get("type") == "error":
                error_data = response.get("data", {})
                raise RuntimeError(f"Server error: {error_data.get('message', 'Unknown error')} (code: {error_data.get('code', 'UNKNOWN')})")
            return response

        async def reset(self, **kwargs: Any) -> Any:
            response = await self._send_and_receive({"type": "reset", "data": kwargs})
            return self._parse_result(response.get("data", {}))

        async def step(self, action: Any, **kwargs: Any) -> Any:
            response = await self._send_and_receive({"type": "step", "data": self._step_payload(action)})
            return self._parse_result(response.get("data", {}))

        async def state(self) -> Any:
            response = await self._send_and_receive({"type": "state"})
            return self._parse_state(response.get("data", {}))

        async def close(self) -> None:
            await self.disconnect()

        async def __aenter__(self) -> "_EnvClient":
            await self.connect()
            return self

        async def __aexit__(self, *exc: Any) -> None:
            await self.close()

        def __enter__(self) -> Any:
            raise TypeError("SearchGymEnv is async (as OpenEnv's EnvClient): use 'async with', or call .sync() for a synchronous wrapper")

        def __exit__(self, *exc: Any) -> None:
            pass

        def sync(self) -> "SyncEnvClient":
            return SyncEnvClient(self)

        def _step_payload(self, action: Any) -> Json:
            raise NotImplementedError

        def _parse_result(self, payload: Json) -> Any:
            raise NotImplementedError

        def _parse_state(self, payload: Json) -> Any:
            raise NotImplementedError

    class SyncEnvClient:
        """OpenEnv's SyncEnvClient (core/sync_client.py): the async client's calls run on a dedicated event loop thread."""

        def __init__(self, async_client: _EnvClient):
            self._async = async_client
            self._loop: Optional[asyncio.AbstractEventLoop] = None
            self._thread: Optional[threading.Thread] = None
            self._lock = threading.Lock()

        def _ensure_loop(self) -> asyncio.AbstractEventLoop:
            with self._lock:
                if self._loop is not None and self._thread is not None and self._thread.is_alive():
                    return self._loop
                ready = threading.Event()
                holder: List[asyncio.AbstractEventLoop] = []

                def run() -> None:
                    loop = asyncio.new_event_loop()
                    holder.append(loop)
                    asyncio.set_event_loop(loop)
                    ready.set()
                    loop.run_forever()
                    loop.close()

                self._thread = threading.Thread(target=run, name="searchgym-openenv-sync", daemon=True)
                self._thread.start()
                if not ready.wait(5):
                    raise RuntimeError("Timed out starting the sync client's event loop")
                self._loop = holder[0]
                return self._loop

        def _run(self, coro: Any) -> Any:
            fut: concurrent.futures.Future = asyncio.run_coroutine_threadsafe(coro, self._ensure_loop())
            return fut.result()

        def _stop_loop(self) -> None:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
            if loop is not None and loop.is_running():
                loop.call_soon_threadsafe(loop.stop)
            if thread is not None:
                thread.join(timeout=5)

        @property
        def async_client(self) -> _EnvClient:
            return self._async

        def connect(self) -> "SyncEnvClient":
            self._run(self._async.connect())
            return self

        def disconnect(self) -> None:
            self._run(self._async.disconnect())

        def reset(self, **kwargs: Any) -> Any:
            return self._run(self._async.reset(**kwargs))

        def step(self, action: Any, **kwargs: Any) -> Any:
            return self._run(self._async.step(action, **kwargs))

        def state(self) -> Any:
            return self._run(self._async.state())

        def close(self) -> None:
            try:
                self._run(self._async.close())
            finally:
                self._stop_loop()

        def __enter__(self) -> "SyncEnvClient":
            return self.connect()

        def __exit__(self, *exc: Any) -> None:
            self.close()

        def __del__(self) -> None:
            try:
                self._stop_loop()
            except Exception:
                pass


def _redact(url: str) -> str:
    """A URL with its /t/TOKEN path prefix hidden (errors are logged)."""
    u = urllib.parse.urlsplit(url)
    path = u.path
    if path.startswith("/t/"):
        rest = path.find("/", 3)
        path = "/t/***" + (path[rest:] if rest != -1 else "")
    return urllib.parse.urlunsplit((u.scheme, u.netloc, path, u.query, ""))


def _detail(body: str) -> str:
    try:
        d = json.loads(body).get("detail")
        return d if isinstance(d, str) else json.dumps(d)[:300]
    except (ValueError, AttributeError):
        return body[:300]


class SearchGymAction(_Action):
    """One action: the assistant's turn as `text` (in the env's protocol), OpenAI `tool_calls`, or one named tool call
    (`tool_name` search / access / answer with its `arguments`). `num_tokens`: the turn's token count for the token
    budgets (default: counted by the server)."""

    text: Optional[str] = None
    tool_calls: Optional[List[Dict[str, Any]]] = None
    tool_name: Optional[str] = None
    arguments: Optional[Dict[str, Any]] = None
    num_tokens: Optional[int] = None


class SearchGymObservation(_Observation):
    """What the gym answers (reward and done beside it): on reset the question (`question`, `qa` without its answer),
    the chat messages (system prompt and question) and the tools as OpenAI schemas; on a step the messages it adds
    (tool results, a corrective note; none once the episode ended) with their `text`, `terminated` / `truncated` /
    `stop_reason`, `step_count` and the step's metrics (no gold signals); a tool-call action also gets `tool_name` and
    `result` (the tool's answer as text)."""

    session_id: Optional[str] = None
    episode_id: Optional[str] = None
    question: Optional[str] = None
    qa: Optional[Dict[str, Any]] = None
    tool_schemas: Optional[List[Dict[str, Any]]] = None
    messages: Optional[List[Dict[str, Any]]] = None
    text: str = ""
    terminated: bool = False
    truncated: bool = False
    stop_reason: Optional[str] = None
    step_count: int = 0
    metrics: Optional[Dict[str, float]] = None
    logs: Optional[Dict[str, str]] = None
    tool_name: Optional[str] = None
    result: Optional[str] = None
    error: Optional[Any] = None
    tools: Optional[List[Dict[str, Any]]] = None


class SearchGymState(_State):
    """The session's episode: its question (no answer), steps, the return so far (`reward`) and how it ended."""

    session_id: Optional[str] = None
    qa_id: Optional[str] = None
    question: Optional[str] = None
    split: Optional[str] = None
    type: Optional[str] = None
    hops: Optional[int] = None
    done: bool = False
    terminated: bool = False
    truncated: bool = False
    stop_reason: Optional[str] = None
    reward: float = 0.0


def _field_names(cls: Any) -> List[str]:
    fields = getattr(cls, "model_fields", None)  # pydantic
    if isinstance(fields, dict):
        return list(fields)
    return cls._fields()


_OBS_FIELDS = None


class SearchGymEnv(_EnvClient):
    """The client of a gym server's OpenEnv face: one WebSocket session, one episode at a time.

    base_url: the server (default $SEARCHGYM_URL, else http://127.0.0.1:8000; http(s):// or ws(s)://). token: the
    server's token (default $SEARCHGYM_TOKEN), sent as the URL path prefix /t/TOKEN. Other keyword arguments are
    EnvClient's (connect_timeout_s, message_timeout_s, max_message_size_mb). reset(**params): qa_id, or split (train |
    bench) with index or seed, or nothing (a fresh draw from train); options: env options (reward, budgets, …);
    episode_id: a label. step(action): a SearchGymAction, a dict of its fields, or a string (the turn's text).
    """

    def __init__(self, base_url: Optional[str] = None, token: Optional[str] = None, **kwargs: Any):
        url = (base_url or os.environ.get("SEARCHGYM_URL") or DEFAULT_URL).rstrip("/")
        token = os.environ.get("SEARCHGYM_TOKEN", "") if token is None else token
        if token and "/t/" not in url:
            url = f"{url}/t/{urllib.parse.quote(token, safe='')}"
        super().__init__(base_url=url, **kwargs)

    def _step_payload(self, action: Any) -> Json:
        if isinstance(action, str):
            return {"text": action}
        if isinstance(action, dict):
            return {k: v for k, v in action.items() if v is not None}
        if not isinstance(action, SearchGymAction):
            raise TypeError(f"a SearchGym action is a SearchGymAction, a dict of its fields or the turn's text, got {type(action).__name__}")
        d = action.model_dump(exclude={"metadata"})
        return {k: v for k, v in d.items() if v is not None}

    def _parse_result(self, payload: Json) -> "StepResult[SearchGymObservation]":
        global _OBS_FIELDS
        if _OBS_FIELDS is None:
            _OBS_FIELDS = set(_field_names(SearchGymObservation)) - {"done", "reward", "metadata"}
        obs = payload.get("observation") or {}
        known = {k: v for k, v in obs.items() if k in _OBS_FIELDS}
        observation = SearchGymObservation(**known, done=bool(payload.get("done", False)), reward=payload.get("reward"))
        return StepResult(observation=observation, reward=payload.get("reward"), done=bool(payload.get("done", False)))

    def _parse_state(self, payload: Json) -> SearchGymState:
        return SearchGymState(**payload)


__all__ = ["HAVE_OPENENV", "SearchGymEnv", "SearchGymAction", "SearchGymObservation", "SearchGymState", "StepResult"]
