"""tests/test_vector: SearchGymVectorEnv on the live gym server — a vector env of 8 completes 8 episodes of one
question (a GRPO group) through rollout() and through step()."""
import unittest

import support
from searchgym import SearchGymVectorEnv, SearchGymError


@support.live
class VectorTest(unittest.TestCase):
    def test_rollout_of_8_plays_8_episodes_of_one_question(self):
        walk = support.fixture()["oracle"][0]
        actions = support.oracle_actions(walk)

        def policy(conversation):  # the oracle's walk, turn by turn
            return actions[sum(1 for m in conversation if m["role"] == "assistant")]

        with SearchGymVectorEnv(8, support.URL, support.TOKEN) as venv:
            episodes = venv.rollout(policy, options={"qa_id": walk["qa_id"]})
            self.assertEqual(len(episodes), 8)
            self.assertEqual({e["qa_id"] for e in episodes}, {walk["qa_id"]})
            self.assertEqual([e["reward"] for e in episodes], [1.0] * 8)
            self.assertTrue(all(e["terminated"] and e["stop_reason"] == "answer" for e in episodes))
            self.assertEqual(venv.done, [True] * 8)
            self.assertEqual(venv.client.health()["envs"], 0)

    def test_step_api_keeps_finished_envs_finished(self):
        with SearchGymVectorEnv(8, support.URL, support.TOKEN) as venv:
            obs, infos = venv.reset(seed=5)
            self.assertEqual(len({i["qa_id"] for i in infos}), 1)  # one question for the group
            self.assertEqual(len(obs), 8)
            first = ["<answer>Nowhere</answer>"] * 4 + [support.tool_call("search", query=infos[0]["question"])] * 4
            _, rewards, terminated, truncated, _ = venv.step(first)
            self.assertEqual(terminated, [True] * 4 + [False] * 4)
            _, rewards, terminated, _, step_infos = venv.step([None] * 4 + ["<answer>Nowhere</answer>"] * 4)
            self.assertEqual(terminated, [True] * 8)
            self.assertEqual(step_infos[0], {"done": True})
            self.assertEqual(rewards, [0.0] * 8)
            with self.assertRaises(SearchGymError):
                venv.step([None] * 7)
            _, infos = venv.reset(seed=5, same_question=False)
            self.assertGreater(len({i["qa_id"] for i in infos}), 1)

    def test_bad_size(self):
        with self.assertRaises(SearchGymError):
            SearchGymVectorEnv(0, support.URL)


if __name__ == "__main__":
    unittest.main()
