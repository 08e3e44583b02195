"""searchgym.reward: a TRL-style reward function (prompts, completions, **kwargs → list of floats) whose scores are the
gym server's own: each completion's last <answer>…</answer> is submitted to a fresh env for the row's question, and
the env's F1 (or EM, or its whole reward spec) comes back. No copy of the metric lives here.
"""
from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from .client import SearchGymClient
from .errors import SearchGymError

Json = Dict[str, Any]
METRICS = ("f1", "em", "reward")
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.S)


def completion_text(completion: Union[str, List[Json], Json]) -> str:
    """A completion as text: a string as is; TRL's conversational form (a list of messages) → its assistant turns."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    return "\n".join(str(m.get("content", "")) for m in completion if m.get("role", "assistant") == "assistant")


def final_answer(completion: Union[str, List[Json], Json]) -> Optional[str]:
    """The text of the completion's last <answer>…</answer>, stripped; None when it has none."""
    found = _ANSWER.findall(completion_text(completion))
    return found[-1].strip() if found else None


def score_answer(client: SearchGymClient, qa_id: str, answer: str, *, metric: str = "f1", env_options: Optional[Json] = None) -> float:
    """The gym's score of one answer to one question: a fresh env, one <answer> turn, closed."""
    env = client.create_env(qa_id, options=env_options)
    try:
        r = client.step(env["envId"], f"<answer>{answer}</answer>")
    finally:
        client.close_env(env["envId"])
    if metric == "reward":
        return float(r.get("reward", 0.0))
    return float(r.get("metrics", {}).get(metric, 0.0))


def make_reward_func(url: Optional[str] = None, token: Optional[str] = None, *, metric: str = "f1", qa_id_key: str = "qa_id",
                     env_options: Optional[Json] = None, max_workers: int = 8, client: Optional[SearchGymClient] = None) -> Callable[..., List[float]]:
    """A reward function for TRL's GRPOTrainer(reward_funcs=[...]).

    TRL passes the dataset's other columns as keyword lists aligned with completions: the column qa_id_key (default
    "qa_id") names each row's question. A completion without <answer>…</answer> scores 0.0 (no request).
    metric: "f1" (default; the paper's reward), "em", or "reward" (the env's reward spec, set through env_options).
    """
    if metric not in METRICS:
        raise SearchGymError(f"searchgym: metric must be one of {', '.join(METRICS)}, got {metric!r}", code="reward.bad_option")
    gym = client or SearchGymClient(url, token)

    def searchgym_reward(prompts: Optional[Sequence[Any]] = None, completions: Optional[Sequence[Any]] = None, **kwargs: Any) -> List[float]:
        if completions is None:
            raise SearchGymError("searchgym: the reward function needs completions=", code="reward.bad_call")
        qa_ids = kwargs.get(qa_id_key)
        if qa_ids is None or len(qa_ids) != len(completions):
            raise SearchGymError(f"searchgym: the reward function needs the dataset column {qa_id_key!r} (one question id per completion)", code="reward.no_qa_id")

        def one(i: int) -> float:
            answer = final_answer(completions[i])
            return 0.0 if answer is None else score_answer(gym, str(qa_ids[i]), answer, metric=metric, env_options=env_options)

        with ThreadPoolExecutor(max_workers=max(1, min(max_workers, len(completions) or 1))) as pool:
            return list(pool.map(one, range(len(completions))))

    searchgym_reward.__name__ = f"searchgym_{metric}"  # TRL logs each reward under its function's name
    return searchgym_reward
