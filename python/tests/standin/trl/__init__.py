"""tests/standin/trl: a stand-in for what python/examples/trl_grpo_openenv.py uses of TRL — GRPOConfig and GRPOTrainer
with environment_factory — so the example imports where TRL is not installed, and its environment class and reward
function run through a replica of TRL's environment rollout with a scripted policy in place of the model.

Written from huggingface/trl at commit f2cd57710ae345ea6428ae95363267fcf38a3dc8 (2026-07-24):
- the exports: trl/__init__.py:51-70 ("GRPOConfig", "GRPOTrainer", … under "trainer").
- GRPOConfig: a record of its keyword arguments (trl/trainer/grpo_config.py; max_tool_calling_iterations :907).
- GRPOTrainer(model, reward_funcs, args, train_dataset, …, environment_factory) — trl/trainer/grpo_trainer.py:
  :611-690 one probe instance per factory: it must define a callable `reset`; its public methods other than reset and
  get_reward are the tools; :2288-2296 one instance per example of a batch, drawn from a pool that grows as needed;
  :2320-2330 reset(**row) with the whole row, its returned text appended to the last user message; :1933-2000 the tool
  loop: for each tool call {"type": "function", "function": {"name", "arguments"}} of the last assistant message, the
  method is called with **arguments, an exception becomes {"error": str(e)}, the result goes back as
  {"role": "tool", "name", "content": str(result)}, and generation goes on while the model calls tools, at most
  max_tool_calling_iterations rounds; :1612-1660 each reward function is called with prompts, completions,
  completion_ids, every other column as a list, trainer_state, log_extra, log_metric and environments (the batch's
  instances).
What a model does is a policy here: policy(messages) → the next assistant message (content, tool_calls).
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Dict, List, Optional

STANDIN = True


class GRPOConfig:
    def __init__(self, output_dir: Optional[str] = None, **kwargs: Any):
        self.output_dir = output_dir
        self.max_tool_calling_iterations = kwargs.pop("max_tool_calling_iterations", None)
        self.num_generations = kwargs.pop("num_generations", 8)
        for k, v in kwargs.items():
            setattr(self, k, v)


class RichProgressCallback:
    pass


class GRPOTrainer:
    def __init__(self, model: Any, reward_funcs: Any = None, args: Optional[GRPOConfig] = None, train_dataset: Any = None, eval_dataset: Any = None,
                 processing_class: Any = None, reward_processing_classes: Any = None, callbacks: Any = None, optimizers: Any = (None, None),
                 quantization_config: Any = None, peft_config: Any = None, tools: Optional[List[Callable]] = None, rollout_func: Any = None,
                 environment_factory: Any = None):
        self.model = model
        self.args = args or GRPOConfig()
        self.train_dataset = train_dataset
        self.reward_funcs = reward_funcs if isinstance(reward_funcs, list) else ([reward_funcs] if reward_funcs else [])
        self.max_tool_calling_iterations = self.args.max_tool_calling_iterations or 10**9
        self.environment_factory = environment_factory
        self._pool: List[Any] = []
        if environment_factory is not None:  # :625-657
            instance = environment_factory()
            names = [n for n, _ in inspect.getmembers(instance, predicate=inspect.ismethod)]
            if "reset" not in names:
                raise ValueError("Each environment instance returned by `environment_factory` must define a callable `reset`.")
            self.tool_names = [n for n in names if n not in ("reset", "get_reward") and not n.startswith("_")]
            self._pool.append(instance)
        if not self.reward_funcs:
            raise ValueError("No reward source provided.")

    def train(self) -> None:
        raise NotImplementedError("tests/standin/trl: no training here; the rollout replica is GRPOTrainer.rollout")

    def rollout(self, inputs: List[Dict[str, Any]], policies: List[Callable[[List[Dict[str, Any]]], Dict[str, Any]]]) -> Dict[str, Any]:
        """One batch (rows already repeated num_generations times, a policy per row) → rewards per reward function,
        the completions and the instances."""
        while len(self._pool) < len(inputs):  # :2288-2296
            self._pool.append(self.environment_factory())
        environments = self._pool[: len(inputs)]
        prompts: List[List[Dict[str, Any]]] = []
        for env, x in zip(environments, inputs):  # :2320-2330
            prompt = [dict(m) for m in x["prompt"]]
            observation = env.reset(**x)
            if observation is not None:
                prompt = prompt[:-1] + [{**prompt[-1], "content": prompt[-1]["content"] + observation}]
            prompts.append(prompt)
        completions: List[List[Dict[str, Any]]] = []
        failures = 0
        for env, prompt, policy in zip(environments, prompts, policies):  # :1933-2000, one rollout at a time
            tools = {n: getattr(env, n) for n, _ in inspect.getmembers(env, predicate=inspect.ismethod) if n not in ("reset", "get_reward") and not n.startswith("_")}
            conversation = list(prompt)
            completion = [policy(conversation)]
            iteration = 0
            while completion[-1].get("tool_calls") and iteration < self.max_tool_calling_iterations:
                conversation.append(completion[-1])
                for tc in completion[-1]["tool_calls"]:
                    name = tc["function"]["name"]
                    try:
                        if name not in tools:
                            raise ValueError(f"Tool {name} not found.")
                        result: Any = tools[name](**tc["function"]["arguments"])
                    except Exception as e:
                        failures += 1
                        result = {"error": str(e)}
                    msg = {"role": "tool", "name": name, "content": result if isinstance(result, list) else str(result)}
                    conversation.append(msg)
                    completion.append(msg)
                completion.append(policy(conversation))
                iteration += 1
            completions.append(completion)
        columns = {k: [x[k] for x in inputs] for k in inputs[0] if k not in ("prompt", "completion", "completion_ids")}  # :1617-1618
        rewards = []
        for f in self.reward_funcs:  # :1630-1660
            rewards.append(f(prompts=prompts, completions=completions, completion_ids=[[] for _ in inputs], trainer_state=None,
                             log_extra=lambda *a, **k: None, log_metric=lambda *a, **k: None, environments=environments, **columns))
        return {"rewards": rewards, "prompts": prompts, "completions": completions, "environments": environments, "tool_failures": failures}
