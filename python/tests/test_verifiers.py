"""tests/test_verifiers: searchgym.verifiers_env in a fresh interpreter with the stand-in of verifiers' classic API
(tests/standin/verifiers, written from its source) on the path: vf.load_environment("searchgym") loads it, the
model sees search and access without the hidden env id, the oracle's walk scores 1.0, a wrong answer 0, and every gym
env is closed afterwards; without verifiers, load_environment is a one-line error."""
import json
import os
import subprocess
import sys
import unittest

import support

SCRIPT = r"""
import json, sys
import verifiers as vf
from verifiers.types import AssistantMessage, ToolCall
url, token, walk = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
env = vf.load_environment("searchgym", url=url, token=token, max_turns=12)
rows = [env.dataset[i] for i in range(len(env.dataset))]
row = next(r for r in rows if r["info"]["qa_id"] == walk["qa_id"])

def scripted(turns):
    it = iter(turns)
    return lambda messages, tool_defs: next(it)

calls = []
for s in walk["searches"]:
    calls.append(("search", {"query": s["query"]}))
    if s.get("found"):
        calls.append(("access", {"url": s["found"]}))
turns = [AssistantMessage(content="", tool_calls=[ToolCall(id=f"call_{i}", name=n, arguments=json.dumps(a))]) for i, (n, a) in enumerate(calls)]
ok = env.run_rollout(row, scripted(turns + [AssistantMessage(content="<answer>" + walk["answer"] + "</answer>")]))
wrong = env.run_rollout(row, scripted([AssistantMessage(content="<answer>Nowhere At All</answer>")]))
tools = {t["name"]: sorted(t["parameters"]["properties"]) for t in env.tool_defs}
tool_texts = [m.content for m in ok["completion"] if getattr(m, "role", None) == "tool"]
print(json.dumps({"rows": len(rows), "prompt_roles": [m["role"] for m in row["prompt"]], "tools": tools, "ok": [ok["reward"], ok["metrics"]],
                  "wrong": wrong["reward"], "tool_texts": tool_texts, "open_envs": env.searchgym_client.health()["envs"]}))
"""


def run(*args, paths=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths or [os.path.join(support.HERE, "standin"), support.SRC])}
    code = SCRIPT if args else "import searchgym; searchgym.load_environment()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=90, env=env)


class VerifiersTest(unittest.TestCase):
    @support.live
    def test_loads_and_plays_oracle_and_wrong_episodes_with_the_standin(self):
        walk = support.fixture()["oracle"][-1]  # the one with two searches or more
        r = run(support.URL, support.TOKEN, json.dumps(walk))
        self.assertEqual(r.returncode, 0, r.stderr)
        got = json.loads(r.stdout)
        from searchgym import SearchGymClient
        self.assertEqual(got["rows"], SearchGymClient(support.URL, support.TOKEN).list_qa("train", limit=0)["total"])
        self.assertEqual(got["prompt_roles"], ["system", "user"])
        self.assertEqual(got["tools"], {"search": ["query"], "access": ["page", "url"]})  # the gym env id stays hidden
        n_calls = sum(2 if s.get("found") else 1 for s in walk["searches"])
        self.assertEqual(got["ok"], [1.0, {"searchgym_f1": 1.0, "total_tool_calls": float(n_calls), "search_calls": len(walk["searches"]),
                                           "access_calls": n_calls - len(walk["searches"])}])
        self.assertEqual(got["wrong"], 0.0)
        self.assertEqual(len(got["tool_texts"]), n_calls)
        self.assertIn(walk["searches"][0]["found"], got["tool_texts"][0])
        self.assertEqual(got["open_envs"], 0)

    def test_without_verifiers_is_a_one_line_error(self):
        r = run(paths=[support.SRC])
        try:
            import verifiers  # noqa: F401
            self.skipTest("the real verifiers is installed here")
        except ImportError:
            pass
        self.assertNotEqual(r.returncode, 0)
        self.assertRegex(r.stderr.strip().splitlines()[-1], r"^searchgym\.errors\.SearchGymError: searchgym: the verifiers environment needs verifiers and datasets \(pip install verifiers\): ")


if __name__ == "__main__":
    unittest.main()
