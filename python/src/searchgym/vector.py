"""searchgym.vector: SearchGymVectorEnv — N SearchGymEnvs kept in flight on threads, by default all on one question
(a GRPO group), and rollout(): N whole episodes played at once by one policy.

Not Gymnasium's VectorEnv (no numpy batching, no autoreset): an env whose episode ended stays ended until reset().
"""
from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from .client import SearchGymClient
from .env import SearchGymEnv
from .errors import EnvStateError, SearchGymError

Json = Dict[str, Any]
# A policy reads the conversation so far (chat messages) and returns the next assistant turn's text.
Policy = Callable[[List[Json]], str]


class SearchGymVectorEnv:
    """num_envs SearchGymEnvs over one client; the rest of the arguments are SearchGymEnv's.

    reset(seed, options, same_question=True) → (observations, infos): with same_question every env gets the one
    question the seed draws (or options name), as GRPO's group needs. step(actions) → (observations, rewards,
    terminated, truncated, infos), lists of num_envs; an env already done is not called (None action allowed) and
    answers ("", 0.0, its final terminated, its final truncated, {"done": True}).
    """

    def __init__(self, num_envs: int, url: Optional[str] = None, token: Optional[str] = None, *, split: str = "train",
                 env_options: Optional[Json] = None, client: Optional[SearchGymClient] = None, timeout: float = 30.0, retries: int = 4):
        if not isinstance(num_envs, int) or num_envs < 1:
            raise SearchGymError(f"searchgym: num_envs must be an integer >= 1, got {num_envs!r}", code="env.bad_option")
        self.client = client or SearchGymClient(url, token, timeout=timeout, retries=retries)
        self.num_envs = num_envs
        self.split = split
        self.envs = [SearchGymEnv(split=split, env_options=env_options, client=self.client) for _ in range(num_envs)]
        self._pool = ThreadPoolExecutor(max_workers=num_envs, thread_name_prefix="searchgym-env")
        self._rng = random.Random()
        self._done = [True] * num_envs
        self._last: List[Tuple[bool, bool]] = [(False, False)] * num_envs

    def reset(self, *, seed: Optional[int] = None, options: Optional[Json] = None, same_question: bool = True) -> Tuple[List[str], List[Json]]:
        if seed is not None:
            self._rng = random.Random(seed)
        opts = dict(options or {})
        if same_question and "qa_id" not in opts:
            split = opts.pop("split", self.split)
            index = opts.pop("index", None)
            if index is None:
                index = self._rng.randrange(int(self.client.list_qa(split, limit=0)["total"]))
            per_env = [{**opts, "split": split, "index": index}] * self.num_envs
        elif same_question:
            per_env = [opts] * self.num_envs
        else:  # each env draws its own question, seeded from this env's draw
            seeds = [self._rng.randrange(2**31) for _ in range(self.num_envs)]
            per_env = [opts] * self.num_envs
            results = list(self._pool.map(lambda i: self.envs[i].reset(seed=seeds[i], options=per_env[i]), range(self.num_envs)))
            return self._after_reset(results)
        results = list(self._pool.map(lambda i: self.envs[i].reset(options=per_env[i]), range(self.num_envs)))
        return self._after_reset(results)

    def _after_reset(self, results: List[Tuple[str, Json]]) -> Tuple[List[str], List[Json]]:
        self._done = [False] * self.num_envs
        self._last = [(False, False)] * self.num_envs
        return [r[0] for r in results], [r[1] for r in results]

    def step(self, actions: Sequence[Optional[Union[str, Json]]]) -> Tuple[List[str], List[float], List[bool], List[bool], List[Json]]:
        if len(actions) != self.num_envs:
            raise SearchGymError(f"searchgym: step() takes one action per env ({self.num_envs}), got {len(actions)}", code="env.bad_action")

        def one(i: int):
            if self._done[i]:
                return "", 0.0, self._last[i][0], self._last[i][1], {"done": True}
            if actions[i] is None:
                raise EnvStateError(f"searchgym: env {i} is still running and needs an action (None is for envs already done)", code="env.bad_action")
            r = self.envs[i].step(actions[i])  # type: ignore[arg-type]
            if r[2] or r[3]:
                self._done[i] = True
                self._last[i] = (r[2], r[3])
            return r

        results = list(self._pool.map(one, range(self.num_envs)))
        return ([r[0] for r in results], [r[1] for r in results], [r[2] for r in results], [r[3] for r in results], [r[4] for r in results])

    @property
    def done(self) -> List[bool]:
        return list(self._done)

    def rollout(self, policy: Policy, *, seed: Optional[int] = None, options: Optional[Json] = None, same_question: bool = True) -> List[Json]:
        """Play num_envs whole episodes at once (each env on its own thread, calling policy(conversation) per turn).

        Returns one dict per env: qa_id, question, reward (the episode's summed reward), turns, stop_reason,
        terminated, truncated, metrics (of the last step), conversation.
        """
        self.reset(seed=seed, options=options, same_question=same_question)

        def play(i: int) -> Json:
            env = self.envs[i]
            total, turns = 0.0, 0
            while True:
                _, reward, terminated, truncated, info = env.step(policy(list(env.conversation)))
                total += reward
                turns += 1
                if terminated or truncated:
                    self._done[i] = True
                    self._last[i] = (terminated, truncated)
                    return {"qa_id": env.qa["id"], "question": env.question, "reward": total, "turns": turns, "stop_reason": info["stop_reason"],
                            "terminated": terminated, "truncated": truncated, "metrics": info["metrics"], "conversation": list(env.conversation)}

        return list(self._pool.map(play, range(self.num_envs)))

    def close(self) -> None:
        for env in self.envs:
            env.close()
        self._pool.shutdown(wait=True)

    def __enter__(self) -> "SearchGymVectorEnv":
        return self

    def __exit__(self, *args: Any) -> bool:
        self.close()
        return False
