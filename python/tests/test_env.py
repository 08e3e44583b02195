"""tests/test_env: SearchGymEnv on the live gym server — the oracle's walk scores 1.0, a wrong answer 0; reset's info
holds the question and its metadata; seeded resets repeat; misuse is a one-line error."""
import unittest

import support
from searchgym import EnvStateError, NotFoundError, SearchGymEnv, SearchGymError


class StubbedEnvTest(unittest.TestCase):
    def test_an_expired_server_env_ends_the_episode(self):
        created = {"envId": "env_1", "qa": {"id": "q1", "type": "simple", "hops": 1, "split": "train", "question": "Who?"},
                   "observation": [{"role": "system", "content": "S"}, {"role": "user", "content": "Who?"}], "tools": []}
        s = support.StubServer([(201, created, {}), (404, {"error": {"message": "env expired after 600 s idle", "code": "env.expired"}}, {})])
        try:
            env = SearchGymEnv(s.url, "")
            self.assertEqual(env.reset(options={"qa_id": "q1"}), ("S\n\nWho?", {**{k: created[k] for k in ("qa", "tools")}, "question": "Who?", "qa_id": "q1",
                                                                               "messages": created["observation"], "env_id": "env_1"}))
            with self.assertRaises(NotFoundError) as e:
                env.step("<answer>x</answer>")
            self.assertEqual(e.exception.code, "env.expired")
            with self.assertRaises(EnvStateError):
                env.step("<answer>x</answer>")
            env.close()  # nothing left to close: no request
            self.assertEqual(len(s.requests), 2)
        finally:
            s.close()


@support.live
class EnvTest(unittest.TestCase):
    def setUp(self):
        self.env = SearchGymEnv(support.URL, support.TOKEN)

    def tearDown(self):
        self.env.close()

    def test_oracle_walk_scores_one(self):
        walks = support.fixture()["oracle"]
        self.assertGreaterEqual(len(walks), 3)
        self.assertTrue(any(len(w["searches"]) >= 2 for w in walks))
        for walk in walks:
            obs, info = self.env.reset(options={"qa_id": walk["qa_id"]})
            self.assertEqual(info["question"], walk["question"])
            self.assertEqual(info["qa_id"], walk["qa_id"])
            self.assertEqual(sorted(info["qa"]), ["hops", "id", "question", "split", "type"])
            self.assertIn(walk["question"], obs)
            self.assertEqual([m["role"] for m in info["messages"]], ["system", "user"])
            self.assertEqual([t["function"]["name"] for t in info["tools"]], ["search", "access"])
            actions = support.oracle_actions(walk)
            for a in actions[:-1]:
                obs, reward, terminated, truncated, step_info = self.env.step(a)
                self.assertEqual((reward, terminated, truncated), (0.0, False, False))
                self.assertTrue(obs)
            if walk["searches"][0].get("found"):
                self.assertIn(walk["searches"][0]["found"], self.env.conversation[3]["content"])
            obs, reward, terminated, truncated, step_info = self.env.step(actions[-1])
            self.assertEqual((reward, terminated, truncated, step_info["stop_reason"]), (1.0, True, False, "answer"))
            self.assertEqual(step_info["metrics"]["f1"], 1)
            self.assertEqual(step_info["stats"]["turns"], len(actions))
            with self.assertRaises(EnvStateError):  # the episode is over: reset first
                self.env.step("<answer>again</answer>")

    def test_wrong_answer_scores_zero(self):
        walk = support.fixture()["oracle"][0]
        self.env.reset(options={"qa_id": walk["qa_id"]})
        _, reward, terminated, truncated, info = self.env.step("<answer>Nowhere At All</answer>")
        self.assertEqual((reward, terminated, truncated, info["metrics"]["f1"]), (0.0, True, False, 0))

    def test_malformed_turn_is_an_observation_and_budgets_truncate(self):
        self.env.reset(seed=3, options={"env_options": {"budgets": {"maxTurns": 2}}})
        obs, reward, terminated, truncated, info = self.env.step("I am not sure what to do.")
        self.assertEqual((reward, terminated, truncated), (0.0, False, False))
        self.assertTrue(obs)
        _, reward, terminated, truncated, info = self.env.step("still thinking")
        self.assertEqual((reward, truncated), (0.0, True))
        self.assertIn("stats", info)

    def test_seeded_reset_repeats_and_draws_from_the_split(self):
        q1 = self.env.reset(seed=7)[1]["qa_id"]
        q2 = self.env.reset(seed=7)[1]["qa_id"]
        self.assertEqual(q1, q2)
        drawn = {self.env.reset()[1]["qa_id"] for _ in range(6)}
        self.assertGreater(len(drawn), 1)
        bench = SearchGymEnv(support.URL, support.TOKEN, split="bench")
        try:
            self.assertEqual(bench.reset(seed=1)[1]["qa"]["split"], "bench")
            self.assertEqual(bench.reset(options={"split": "train", "index": 0})[1]["qa"]["split"], "train")
        finally:
            bench.close()

    def test_misuse(self):
        with self.assertRaises(EnvStateError) as e:
            self.env.step("hi")
        self.assertEqual(str(e.exception), "searchgym: step() before reset(), or after the episode ended: call reset() first")
        with self.assertRaises(SearchGymError) as e:
            self.env.reset(options={"qaid": "x"})
        self.assertIn("unknown reset option 'qaid'", str(e.exception))
        with self.assertRaises(NotFoundError):
            self.env.reset(options={"qa_id": "no-such-question"})
        with self.assertRaises(SearchGymError):
            SearchGymEnv(support.URL, split="dev")

    def test_close_frees_the_server_env(self):
        self.env.reset(seed=1)
        before = self.env.client.health()["envs"]
        self.env.close()
        self.env.close()  # idempotent
        self.assertEqual(self.env.client.health()["envs"], before - 1)


if __name__ == "__main__":
    unittest.main()
