"""tests/test_reward: the TRL-style reward function on the live gym server equals `searchgym score` (the CLI) on the
same answers; completions without an answer score 0; TRL's conversational completions are read."""
import json
import os
import subprocess
import tempfile
import unittest

import support
from searchgym import SearchGymError, final_answer, make_reward_func


class AnswerTest(unittest.TestCase):
    def test_final_answer(self):
        self.assertEqual(final_answer("<answer>a</answer> then <answer> B c </answer>"), "B c")
        self.assertIsNone(final_answer("no tags"))
        self.assertEqual(final_answer([{"role": "assistant", "content": "<answer>x</answer>"}]), "x")

    def test_bad_metric(self):
        with self.assertRaises(SearchGymError):
            make_reward_func("http://127.0.0.1:1", metric="bleu")


@support.live
class RewardTest(unittest.TestCase):
    def test_equals_searchgym_score(self):
        rows = support.fixture()["questions"]
        # Per question: the gold answer, a wrong one, the gold's first word (partial credit) and a longer one.
        answers = [(r, a) for r in rows for a in (r["answers"][0], "Nowhere At All", r["answers"][0].split(" ")[0], r["answers"][0] + " and more")]
        completions = [f"<think>done</think><answer>{a}</answer>" for _, a in answers]
        qa_ids = [r["qa_id"] for r, _ in answers]
        f1 = make_reward_func(support.URL, support.TOKEN)(prompts=[""] * len(completions), completions=completions, qa_id=qa_ids)
        em = make_reward_func(support.URL, support.TOKEN, metric="em")(prompts=[""] * len(completions), completions=completions, qa_id=qa_ids)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "answers.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                for r, a in answers:
                    f.write(json.dumps({"prediction": a, "answers": r["answers"]}) + "\n")
            out = subprocess.run(support.cli() + ["score", "--in", path], capture_output=True, text=True, timeout=120, check=True).stdout
        scored = [json.loads(line) for line in out.splitlines() if line.strip()]
        self.assertEqual(f1, [s["f1"] for s in scored])
        self.assertEqual(em, [float(s["em"]) for s in scored])
        self.assertIn(1.0, f1)
        self.assertIn(0.0, f1)
        self.assertTrue(any(0 < x < 1 for x in f1))

    def test_conversational_and_missing_answers(self):
        row = support.fixture()["questions"][0]
        reward = make_reward_func(support.URL, support.TOKEN)
        self.assertEqual(reward.__name__, "searchgym_f1")
        got = reward(prompts=[[], []], completions=[[{"role": "assistant", "content": f"<answer>{row['answers'][0]}</answer>"}],
                                                     [{"role": "assistant", "content": "I do not know"}]], qa_id=[row["qa_id"]] * 2)
        self.assertEqual(got, [1.0, 0.0])
        with self.assertRaises(SearchGymError) as e:
            reward(prompts=[""], completions=["<answer>x</answer>"])
        self.assertIn("'qa_id'", str(e.exception))


if __name__ == "__main__":
    unittest.main()
