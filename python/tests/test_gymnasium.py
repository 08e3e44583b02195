"""tests/test_gymnasium: the Gymnasium path with the stand-in package (tests/standin/gymnasium, written from
Gymnasium's source) on the path, in a fresh interpreter: SearchGymEnv subclasses gymnasium.Env, SearchGym-v0 is
registered, gymnasium.make builds it, and it plays an episode; without Gymnasium the package still imports."""
import json
import os
import subprocess
import sys
import unittest

import support

SCRIPT = r"""
import json, sys
import gymnasium
import searchgym
out = {"standin": getattr(gymnasium, "STANDIN", False), "have": searchgym.HAVE_GYMNASIUM,
       "subclass": issubclass(searchgym.SearchGymEnv, gymnasium.Env), "registered": "SearchGym-v0" in gymnasium.registry}
if len(sys.argv) > 1:
    env = gymnasium.make("searchgym:SearchGym-v0", url=sys.argv[1], token=sys.argv[2])
    obs, info = env.reset(seed=0, options={"qa_id": sys.argv[3]})
    out["obs_in_space"] = env.observation_space.contains(obs)
    out["np_random_seed"] = env.np_random_seed
    out["spec"] = env.spec.id
    with env:
        out["step"] = list(env.step("<answer>" + sys.argv[4] + "</answer>")[1:4])
    out["open_envs"] = env.client.health()["envs"]
print(json.dumps(out))
"""


def run(paths, *args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    r = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=60, env=env)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return json.loads(r.stdout)


class GymnasiumTest(unittest.TestCase):
    standin = os.path.join(support.HERE, "standin")

    def test_registers_and_subclasses_with_the_standin(self):
        got = run([self.standin, support.SRC])
        self.assertEqual(got, {"standin": True, "have": True, "subclass": True, "registered": True})

    @support.live
    def test_make_and_play_with_the_standin(self):
        walk = support.fixture()["oracle"][0]
        got = run([self.standin, support.SRC], support.URL, support.TOKEN, walk["qa_id"], walk["answer"])
        self.assertEqual(got["step"], [1.0, True, False])
        self.assertEqual((got["obs_in_space"], got["np_random_seed"], got["spec"]), (True, 0, "SearchGym-v0"))
        self.assertEqual(got["open_envs"], 0)

    def test_without_gymnasium(self):
        r = subprocess.run([sys.executable, "-c", "import searchgym, json; print(json.dumps([searchgym.HAVE_GYMNASIUM, searchgym.register()]))"],
                           capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": support.SRC})
        try:
            import gymnasium  # noqa: F401
            self.skipTest("the real gymnasium is installed here")
        except ImportError:
            pass
        self.assertEqual(json.loads(r.stdout), [False, False])


if __name__ == "__main__":
    unittest.main()
