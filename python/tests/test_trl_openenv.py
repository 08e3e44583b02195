"""tests/test_trl_openenv: python/examples/trl_grpo_openenv.py — it compiles, imports from trl only names TRL exports
(trl/__init__.py at f2cd5771), and its environment class and reward function, run through a replica of TRL's
environment rollout (tests/standin/trl, written from grpo_trainer.py) against the live gym with scripted policies in
place of the model, give each completion the gym's own F1 of its answer (searchgym.score_answer: a fresh env API env);
a completion that never answers gets 0, and a second batch reuses the pooled instances.
"""
import ast
import json
import os
import subprocess
import sys
import unittest

import support

EXAMPLE = os.path.join(os.path.dirname(support.HERE), "examples", "trl_grpo_openenv.py")
# trl/__init__.py:22-70 at f2cd57710ae345ea6428ae95363267fcf38a3dc8, the "trainer" names and the rest it exports.
TRL_EXPORTS = {"BEMACallback", "DPOConfig", "DPOTrainer", "GRPOConfig", "GRPOTrainer", "KTOConfig", "KTOTrainer", "LogCompletionsCallback", "ModelConfig",
               "RewardConfig", "RewardTrainer", "RichProgressCallback", "RLOOConfig", "RLOOTrainer", "SFTConfig", "SFTTrainer", "SyncRefModelCallback",
               "WeaveCallback", "get_peft_config", "DatasetMixtureConfig", "ScriptArguments", "TrlParser", "get_dataset", "init_zero_verbose",
               "create_reference_model"}

SCRIPT = r"""
import json, sys
url, token, walks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
import trl_grpo_openenv as ex
from searchgym import SearchGymClient, score_answer
args = ex.parse_args(["--env-url", url, "--token", token, "--dataset-size", "5", "--num-generations", "4", "--model", "Qwen/Qwen3-0.6B"])
trainer = ex.make_trainer(args)
assert trainer.tool_names == ["access", "answer", "search"], trainer.tool_names
assert len(trainer.train_dataset) == 5 and trainer.train_dataset.column_names == ["prompt", "qa_id"]

def call(name, **arguments):
    return {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": name, "arguments": arguments}}]}

def oracle(walk, answer):
    turns = []
    for s in walk["searches"]:
        turns.append(call("search", query=s["query"]))
        if s.get("found"):
            turns.append(call("access", url=s["found"]))
    turns.append(call("answer", answer=answer))
    turns.append({"role": "assistant", "content": "Done."})
    it = iter(turns)
    return lambda conversation: next(it)

def says(text):
    return lambda conversation: {"role": "assistant", "content": text}

client = SearchGymClient(url, token)
out = {"batches": []}
for walk in walks[:2]:
    answers = [walk["answer"], "Nowhere At All", walk["answer"] + " and more words", None]
    policies = [oracle(walk, a) if a is not None else says("I do not know.") for a in answers]
    row = {"prompt": [{"role": "user", "content": ex.PROMPT}], "qa_id": walk["qa_id"]}
    got = trainer.rollout([dict(row) for _ in answers], policies)
    gym = [score_answer(client, walk["qa_id"], a) if a is not None else 0.0 for a in answers]
    out["batches"].append({"rewards": got["rewards"][0], "gym_f1": gym, "failures": got["tool_failures"],
                           "question_in_prompt": all(p[-1]["content"] == ex.PROMPT + walk["question"] for p in got["prompts"]), "pool": len(trainer._pool),
                           "tool_messages": [sum(1 for m in c if m.get("role") == "tool") for c in got["completions"]]})
# After an answer the episode is over: another tool call is an error fed back to the model (TRL's way).
env = trainer._pool[0]
out["after_answer"] = env.done
try:
    env.search("anything")
    out["after_answer_error"] = None
except ValueError as e:
    out["after_answer_error"] = str(e)
for e in trainer._pool:
    e.client.close()
print(json.dumps(out))
"""


class ExampleSourceTest(unittest.TestCase):
    def test_compiles_and_imports_only_trls_exports(self):
        with open(EXAMPLE, encoding="utf-8") as f:
            src = f.read()
        tree = ast.parse(compile(src, EXAMPLE, "exec", flags=ast.PyCF_ONLY_AST))
        from_trl = [a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.module or "").split(".")[0] == "trl" for a in n.names]
        self.assertEqual(sorted(from_trl), ["GRPOConfig", "GRPOTrainer"])
        self.assertTrue(set(from_trl) <= TRL_EXPORTS)
        modules = {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        modules |= {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        self.assertEqual(modules - {"__future__", "argparse", "os", "typing"}, {"datasets", "trl", "searchgym"})


@support.live
class ExampleRolloutTest(unittest.TestCase):
    def test_scripted_completions_get_the_gyms_f1(self):
        walks = support.fixture()["oracle"]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.join(support.HERE, "standin"), support.SRC, os.path.dirname(EXAMPLE)])}
        r = subprocess.run([sys.executable, "-c", SCRIPT, support.URL, support.TOKEN, json.dumps(walks)], capture_output=True, text=True, timeout=180, env=env)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        got = json.loads(r.stdout)
        for b in got["batches"]:
            self.assertEqual(b["rewards"], b["gym_f1"])
            self.assertEqual(b["rewards"][0], 1.0)
            self.assertEqual(b["rewards"][1], 0.0)
            self.assertTrue(0.0 < b["rewards"][2] < 1.0, b["rewards"])
            self.assertEqual(b["rewards"][3], 0.0)
            self.assertEqual(b["failures"], 0)
            self.assertEqual(b["pool"], 4)  # one instance per generation, reused by the next batch
            self.assertEqual(b["tool_messages"][3], 0)
            self.assertIs(b["question_in_prompt"], True)  # reset's question appended to the user message
        self.assertIs(got["after_answer"], True)
        self.assertEqual(got["after_answer_error"], "The episode is over.")


if __name__ == "__main__":
    unittest.main()
