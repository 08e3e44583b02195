"""searchgym: the Python door to a SearchGym.ts gym server — client, Gymnasium-style env, vector env, TRL reward,
verifiers environment.

Standard library only; Gymnasium is used (and SearchGym-v0 registered) when it is installed. Start a server with
`npx searchgym gym serve worlds/tiny`; see python/README.md.
"""
from ._gym import ENV_ID, HAVE_GYMNASIUM, register
from .client import SearchGymClient
from .env import SearchGymEnv, messages_text
from .errors import (ApiError, AuthenticationError, BadReplyError, BadRequestError, ConflictError, EnvStateError, NotFoundError, RateLimitError, SearchGymError,
                     ServerError, TransportError)
from .reward import final_answer, make_reward_func, score_answer
from .vector import SearchGymVectorEnv
from .verifiers_env import load_environment  # verifiers' convention: vf.load_environment("searchgym", url=...)

__version__ = "0.1.0"
__all__ = [
    "ENV_ID", "HAVE_GYMNASIUM", "register", "SearchGymClient", "SearchGymEnv", "SearchGymVectorEnv", "messages_text", "make_reward_func",
    "score_answer", "final_answer", "SearchGymError", "TransportError", "BadReplyError", "ApiError", "BadRequestError", "AuthenticationError", "NotFoundError",
    "ConflictError", "RateLimitError", "ServerError", "EnvStateError", "load_environment",
]

register()  # gymnasium.make("SearchGym-v0", url=...) once searchgym is imported (or "searchgym:SearchGym-v0")
