"""tests/standin/verifiers: a minimal stand-in for verifiers' classic API (what `import verifiers as vf` resolves to),
so searchgym.verifiers_env loads and plays episodes where verifiers is not installed.

Written from PrimeIntellect-ai/verifiers at a60a606ec (verifiers/legacy/...):
- load_environment(env_id, **env_args): utils/env_utils.py:13-30 (import env_id with "-" → "_", :69-73, and call its
  load_environment).
- Rubric: rubrics/rubric.py:40-68 (funcs, weights default 1.0), :74 (add_metric, weight 0), :87-94
  (add_cleanup_handler), :125-141 (score objects: prompt, completion, answer, state, info), :184-220 (a function gets
  every object when it takes **kwargs, else only the ones it names; an exception scores 0.0), :265-272 (cleanup
  calls each handler with the state), :319-357 (score_rollout: reward = sum of weight x score, metrics by name).
  RubricGroup: rubrics/rubric_group.py:77-106 (rewards summed, metrics merged; cleanup of every rubric).
- Environment: envs/environment.py:99-139 (dataset, system_prompt, rubric, tool_defs), :278-310 (_ensure_prompt: a
  "question" column becomes "prompt" = [system, user]), :540-595 (init_state: the row's fields, trajectory [],
  completion None, reward None), :667-689 (_run_rollout_state: rollout, score_rollout, rubric.cleanup), :1340-1346
  (add_rubric builds a RubricGroup).
- MultiTurnEnv: envs/multiturn_env.py:76-78 (max_turns_reached), :99-101 (setup_state), :103-112
  (get_prompt_messages: the previous turn plus env_response), :114-129 (render_completion), :167-230 (rollout loop).
  The model call is simplified: state["client"] is a callable (messages, tool_defs) → AssistantMessage.
- ToolEnv: envs/tool_env.py:15-73 (ToolMonitorRubric: tool-call counts as metrics), :76-99 (__init__), :123-132
  (no_tools_called stops the rollout), :134-145 (call_tool awaits the tool with the arguments), :147-184.
- StatefulToolEnv: envs/stateful_tool_env.py:44-69, :71-109 (add_tool(tool, args_to_skip): the skipped arguments
  leave the schema), :122-131 (update_tool_args, abstract), :133-200 (env_response injects them per call).
- Messages: pydantic models there (types.py); plain classes with the same attribute names here.
"""
from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import uuid
from typing import Any, Callable, Dict, List, Optional

from .types import AssistantMessage, ToolCall, ToolMessage, UserMessage, SystemMessage  # noqa: F401

STANDIN = True
State = dict
Messages = list


async def maybe_await(func: Callable[..., Any], **kwargs: Any) -> Any:
    out = func(**kwargs)
    return await out if inspect.isawaitable(out) else out


def load_environment(env_id: str, **env_args: Any) -> "Environment":
    module = importlib.import_module(env_id.replace("-", "_").split("/")[-1])
    return module.load_environment(**env_args)


def _json_type(annotation: Any) -> str:
    return {int: "integer", float: "number", bool: "boolean", "int": "integer", "float": "number", "bool": "boolean"}.get(annotation, "string")


def convert_func_to_tool_def(func: Callable[..., Any], skip: tuple = ()) -> Dict[str, Any]:
    sig = inspect.signature(func)
    props = {n: {"type": _json_type(p.annotation)} for n, p in sig.parameters.items() if n not in skip}
    required = [n for n, p in sig.parameters.items() if n not in skip and p.default is inspect.Parameter.empty]
    return {"name": func.__name__, "description": (inspect.getdoc(func) or "").split("\n")[0], "parameters": {"type": "object", "properties": props, "required": required}}


class Rubric:
    def __init__(self, funcs: Optional[List[Callable[..., Any]]] = None, weights: Optional[List[float]] = None, parser: Any = None):
        self.funcs = list(funcs or [])
        self.weights = list(weights or [1.0] * len(self.funcs))
        if len(self.weights) != len(self.funcs):
            raise ValueError(f"Number of weights ({len(self.weights)}) must match number of functions ({len(self.funcs)})")
        self._cleanup_handlers: List[Callable[..., Any]] = []

    def add_reward_func(self, func: Callable[..., Any], weight: float = 1.0) -> None:
        self.funcs.append(func)
        self.weights.append(weight)

    def add_metric(self, func: Callable[..., Any], weight: float = 0.0) -> None:
        self.add_reward_func(func, weight)

    def add_cleanup_handler(self, handler: Callable[..., Any]) -> None:
        self._cleanup_handlers.append(handler)

    def score_objects(self, state: State) -> Dict[str, Any]:
        return {"prompt": state["prompt"], "completion": state["completion"], "answer": state.get("answer", ""), "state": state, "info": state.get("info", {})}

    async def _call(self, func: Callable[..., Any], state: State) -> float:
        sig = inspect.signature(func)
        merged = self.score_objects(state)
        if not any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
            merged = {k: v for k, v in merged.items() if k in sig.parameters}
        try:
            return float(await maybe_await(func, **merged))
        except Exception:  # rubric.py:204-209 logs and scores 0.0
            return 0.0

    async def score_rollout(self, state: State) -> None:
        scores = [await self._call(f, state) for f in self.funcs]
        state["reward"] = sum(s * w for s, w in zip(scores, self.weights))
        state["metrics"] = {f.__name__: s for f, s in zip(self.funcs, scores)}

    async def cleanup(self, state: State) -> None:
        for handler in self._cleanup_handlers:
            await maybe_await(handler, state=state)


class RubricGroup(Rubric):
    def __init__(self, rubrics: List[Rubric]):
        super().__init__()
        self.rubrics = rubrics

    async def score_rollout(self, state: State) -> None:
        total, metrics = 0.0, {}
        for r in self.rubrics:
            await r.score_rollout(state)
            total += state["reward"]
            for k, v in state["metrics"].items():
                metrics[k] = metrics.get(k, 0.0) + v
        state["reward"], state["metrics"] = total, metrics

    async def cleanup(self, state: State) -> None:
        await super().cleanup(state)
        for r in self.rubrics:
            await r.cleanup(state)


class Environment:
    def __init__(self, dataset: Any = None, eval_dataset: Any = None, system_prompt: Optional[str] = None, rubric: Optional[Rubric] = None,
                 tool_defs: Optional[list] = None, **kwargs: Any):
        self.system_prompt = system_prompt
        self.tool_defs = tool_defs
        self.rubric = rubric
        self.dataset = self._ensure_prompt(dataset) if dataset is not None else None

    def _ensure_prompt(self, dataset: Any) -> Any:
        if "prompt" in dataset.column_names:
            return dataset
        system = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return dataset.map(lambda x: {"prompt": system + [{"role": "user", "content": x["question"]}]})

    def add_rubric(self, rubric: Rubric) -> None:
        if self.rubric is None:
            self.rubric = rubric
        elif isinstance(self.rubric, RubricGroup):
            self.rubric.rubrics.append(rubric)
        else:
            self.rubric = RubricGroup(rubrics=[self.rubric, rubric])

    async def init_state(self, input: Dict[str, Any], client: Any, model: str, sampling_args: Any = None) -> State:
        state: State = dict(json.loads(json.dumps(input)))
        state.update(client=client, model=model, tool_defs=list(self.tool_defs or []), trajectory=[], completion=None, reward=None, metrics=None,
                     error=None, final_env_response=None, trajectory_id=uuid.uuid4().hex, is_completed=False)
        return state

    async def _run_rollout_state(self, input: Dict[str, Any], client: Any, model: str, sampling_args: Any = None) -> State:
        state = await self.rollout(input, client, model, sampling_args)
        await self.rubric.score_rollout(state)
        await self.rubric.cleanup(state)
        return state

    def run_rollout(self, input: Dict[str, Any], client: Any, model: str = "scripted") -> State:
        return asyncio.run(self._run_rollout_state(input, client, model))


class MultiTurnEnv(Environment):
    def __init__(self, max_turns: int = -1, **kwargs: Any):
        super().__init__(**kwargs)
        self.max_turns = max_turns

    async def env_response(self, messages: Messages, state: State, **kwargs: Any) -> Messages:
        raise NotImplementedError

    async def setup_state(self, state: State) -> Optional[State]:
        return state

    async def is_completed(self, state: State) -> bool:
        return 0 < self.max_turns <= len(state["trajectory"])

    async def get_prompt_messages(self, state: State) -> Messages:
        if not state["trajectory"]:
            return list(state["prompt"])
        messages = list(state["trajectory"][-1]["prompt"]) + list(state["trajectory"][-1]["completion"])
        return messages + list(await self.env_response(messages, state))

    async def rollout(self, input: Dict[str, Any], client: Any, model: str, sampling_args: Any = None) -> State:
        state = await self.init_state(input, client, model, sampling_args)
        state = await self.setup_state(state) or state
        while not await self.is_completed(state):
            prompt = await self.get_prompt_messages(state)
            response = state["client"](prompt, state["tool_defs"])
            state["trajectory"].append({"prompt": prompt, "completion": [response]})
        last = state["trajectory"][-1] if state["trajectory"] else None
        state["completion"] = (list(last["prompt"]) + list(last["completion"]))[len(state["prompt"]):] if last else []
        return state


class ToolMonitorRubric(Rubric):
    def __init__(self, tool_names: Optional[List[str]] = None):
        super().__init__()
        self.tool_names: List[str] = []
        self.add_metric(self.total_tool_calls)
        for n in tool_names or []:
            self.add_tool_metric(n)

    def add_tool_metric(self, tool_name: str) -> None:
        if tool_name not in self.tool_names:
            self.tool_names.append(tool_name)

            async def count(completion: Messages) -> int:
                return sum(1 for m in completion if isinstance(m, AssistantMessage) for c in m.tool_calls or [] if c.name == tool_name)

            count.__name__ = f"{tool_name}_calls"
            self.add_metric(count)

    async def total_tool_calls(self, completion: Messages) -> float:
        return float(sum(len(m.tool_calls or []) for m in completion if getattr(m, "role", None) == "assistant"))


class ToolEnv(MultiTurnEnv):
    def __init__(self, tools: Optional[List[Callable[..., Any]]] = None, max_turns: int = 10, error_formatter: Callable[[Exception], str] = lambda e: f"{e}", **kwargs: Any):
        self.tools = list(tools or [])
        self.error_formatter = error_formatter
        self.tool_defs = [convert_func_to_tool_def(t) for t in self.tools]
        self.tool_map = {t.__name__: t for t in self.tools}
        super().__init__(tool_defs=self.tool_defs, max_turns=max_turns, **kwargs)
        self.tool_monitor_rubric = ToolMonitorRubric(tool_names=list(self.tool_map))
        self.add_rubric(self.tool_monitor_rubric)

    async def is_completed(self, state: State) -> bool:
        if await super().is_completed(state):
            return True
        if not state["trajectory"]:
            return False
        last = state["trajectory"][-1]["completion"][-1]
        return last.role == "assistant" and not last.tool_calls  # no_tools_called

    async def call_tool(self, tool_name: str, tool_args: dict, tool_call_id: str, **kwargs: Any) -> ToolMessage:
        result = await maybe_await(self.tool_map[tool_name], **tool_args)
        return ToolMessage(role="tool", content=str(result), tool_call_id=tool_call_id)


class StatefulToolEnv(ToolEnv):
    def __init__(self, tools: Optional[List[Callable[..., Any]]] = None, max_turns: int = 10, **kwargs: Any):
        super().__init__(tools=tools, max_turns=max_turns, **kwargs)
        self.skipped_args: Dict[str, List[str]] = {}

    def add_tool(self, tool: Callable[..., Any], args_to_skip: List[str] = []) -> None:
        self.tools.append(tool)
        self.tool_defs.append(convert_func_to_tool_def(tool, tuple(args_to_skip)))
        self.tool_map[tool.__name__] = tool
        self.skipped_args[tool.__name__] = list(args_to_skip)
        self.tool_monitor_rubric.add_tool_metric(tool.__name__)

    def update_tool_args(self, tool_name: str, tool_args: dict, messages: Messages, state: State, **kwargs: Any) -> dict:
        raise NotImplementedError

    async def env_response(self, messages: Messages, state: State, **kwargs: Any) -> Messages:
        out = []
        for call in messages[-1].tool_calls:
            try:
                args = json.loads(call.arguments)
                if not isinstance(args, dict):
                    raise ValueError(f"Expected tool arguments to be a dict, got {type(args).__name__}: {args}")
            except Exception as e:
                out.append(ToolMessage(role="tool", content=self.error_formatter(e), tool_call_id=call.id))
                continue
            args = self.update_tool_args(call.name, args, messages, state, **kwargs)
            try:
                out.append(await self.call_tool(call.name, args, call.id))
            except Exception as e:
                out.append(ToolMessage(role="tool", content=self.error_formatter(e), tool_call_id=call.id))
        return out
