"""searchgym.env: SearchGymEnv — one gym server env at a time behind Gymnasium's reset/step/close, text in, text out.

An episode is one question: reset() opens a server env (POST /v1/envs), step() sends one assistant turn and closes
the server env when the episode ends. The gym server decides rewards, budgets and truncation; this class only carries
them. Subclasses gymnasium.Env when Gymnasium is installed (searchgym._gym).
"""
from __future__ import annotations

import random
import threading
from typing import Any, Dict, List, Optional, Tuple, Union

from ._gym import Env, text_space
from .client import SearchGymClient
from .errors import EnvStateError, NotFoundError, SearchGymError

Json = Dict[str, Any]
RESET_OPTIONS = ("qa_id", "split", "index", "env_options")


def messages_text(messages: List[Json]) -> str:
    """The text of chat messages, one after the other (what a text-only policy reads)."""
    return "\n\n".join(str(m.get("content", "")) for m in messages)


class SearchGymEnv(Env):
    """A Search/Access episode over HTTP with Gymnasium semantics.

    url, token: the gym server (defaults: $SEARCHGYM_URL, $SEARCHGYM_TOKEN), or client= an existing SearchGymClient.
    split: where reset() draws questions from ("train" or "bench") when no question is named.
    qa_id: always this question (reset's options may name another).
    env_options: the server's env options for every episode (e.g. {"reward": "em+format", "budgets": {"maxTurns": 8}}).

    reset(seed=None, options=None) → (observation, info): observation is the system prompt and the question as text;
    info holds question, qa_id, qa (id, type, hops, split, question), messages (as chat messages), tools (OpenAI
    schemas) and env_id. options: qa_id, or split + index, and env_options for this episode.
    step(action) → (observation, reward, terminated, truncated, info): action is the assistant's raw turn text (or
    {text, tool_calls}); info holds metrics, logs, stop_reason, messages and, once the episode ends, stats.
    """

    metadata: Dict[str, Any] = {"render_modes": []}

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *, split: str = "train", qa_id: Optional[str] = None,
                 env_options: Optional[Json] = None, client: Optional[SearchGymClient] = None, timeout: float = 30.0, retries: int = 4):
        if split not in ("train", "bench"):
            raise SearchGymError(f"searchgym: split must be train or bench, got {split!r}", code="env.bad_option")
        self.client = client or SearchGymClient(url, token, timeout=timeout, retries=retries)
        self.split = split
        self.qa_id = qa_id
        self.env_options = dict(env_options or {})
        space = text_space()
        if space is not None:  # gymnasium.make's env checker asks for both spaces
            self.observation_space = space
            self.action_space = space
        self._rng = random.Random()
        self._totals: Dict[str, int] = {}
        self._env_id: Optional[str] = None
        self._lock = threading.Lock()
        self.qa: Optional[Json] = None
        self.tools: List[Json] = []
        # The whole conversation so far (initial messages, assistant turns, observations): for a chat template.
        self.conversation: List[Json] = []

    @property
    def question(self) -> Optional[str]:
        return self.qa["question"] if self.qa else None

    def reset(self, *, seed: Optional[int] = None, options: Optional[Json] = None) -> Tuple[str, Json]:
        super().reset(seed=seed)  # Gymnasium seeds its np_random here (gymnasium/core.py, Env.reset)
        if seed is not None:
            self._rng = random.Random(seed)
        opts = dict(options or {})
        unknown = sorted(set(opts) - set(RESET_OPTIONS))
        if unknown:
            raise SearchGymError(f"searchgym: unknown reset option {unknown[0]!r}; known: {', '.join(RESET_OPTIONS)}", code="env.bad_option")
        self._close_server_env()
        env_options = {**self.env_options, **(opts.get("env_options") or {})}
        qa_id = opts.get("qa_id", None if "index" in opts else self.qa_id)
        if qa_id is not None:
            created = self.client.create_env(qa_id, options=env_options)
        else:
            split = opts.get("split", self.split)
            index = opts["index"] if "index" in opts else self._rng.randrange(self._total(split))
            created = self.client.create_env(split=split, index=index, options=env_options)
        self._env_id = created["envId"]
        self.qa = created["qa"]
        self.tools = created.get("tools", [])
        self.conversation = list(created["observation"])
        info = {"question": self.qa["question"], "qa_id": self.qa["id"], "qa": dict(self.qa), "messages": list(created["observation"]),
                "tools": self.tools, "env_id": self._env_id}
        return messages_text(created["observation"]), info

    def step(self, action: Union[str, Json]) -> Tuple[str, float, bool, bool, Json]:
        if self._env_id is None:
            raise EnvStateError("searchgym: step() before reset(), or after the episode ended: call reset() first", code="env.reset_needed")
        if not isinstance(action, (str, dict)):
            raise SearchGymError(f"searchgym: an action is the assistant's turn as text (or {{text, tool_calls}}), got {type(action).__name__}", code="env.bad_action")
        try:
            r = self.client.step(self._env_id, action)
        except NotFoundError:  # expired on the server (idle too long): this episode is over
            self._env_id = None
            raise
        obs = r.get("observation", [])
        text = action if isinstance(action, str) else str(action.get("text", ""))
        self.conversation.append({"role": "assistant", "content": text})
        self.conversation.extend(obs)
        terminated, truncated = bool(r.get("terminated")), bool(r.get("truncated"))
        info: Json = {"metrics": r.get("metrics", {}), "logs": r.get("logs", {}), "stop_reason": r.get("stopReason"), "messages": obs}
        if terminated or truncated:
            info["stats"] = self._close_server_env()
        return messages_text(obs), float(r.get("reward", 0.0)), terminated, truncated, info

    def close(self) -> None:
        """Close the open server env, if any (idempotent)."""
        self._close_server_env()
        super().close()

    def _total(self, split: str) -> int:
        if split not in self._totals:
            self._totals[split] = int(self.client.list_qa(split, limit=0)["total"])
        if self._totals[split] == 0:
            raise SearchGymError(f"searchgym: the server's {split} split has no questions", code="env.empty_split")
        return self._totals[split]

    def _close_server_env(self) -> Optional[Json]:
        with self._lock:
            env_id, self._env_id = self._env_id, None
        if env_id is None:
            return None
        try:
            return self.client.close_env(env_id).get("stats")
        except NotFoundError:  # expired on the server (gym serve --idle-seconds): nothing left to close
            return None
