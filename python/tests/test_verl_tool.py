"""tests/test_verl_tool: the verl tool module (searchgym.verl_tool, the file `world export --format verl` copies) on the
live gym server, driven as verl's tool agent loop drives it (one request id per trajectory; create / execute / release
around every call, tests/replicas/verl_gym_episodes.py): its episode's observations and reward equal the same
actions' through the env API (SearchGymEnv), and no env is left open."""
import asyncio
import json
import unittest
import uuid

import support
from searchgym import SearchGymEnv
from searchgym import verl_tool


class AgentData:  # the field the tool reads (verl tool_agent_loop.py:54-84)
    def __init__(self):
        self.request_id = uuid.uuid4().hex


async def call(action, create_kwargs, args, agent):
    tool = verl_tool.SearchGymTool({"gym_url": support.URL + "/t/" + support.TOKEN, "action": action}, None)
    iid, _ = await tool.create(create_kwargs=create_kwargs)
    try:
        resp, _, _ = await tool.execute(iid, args, agent_data=agent)
    finally:
        await tool.release(iid)
    return resp.text


async def verl_episode(walk, answer):
    agent, ck, texts = AgentData(), {"qa_id": walk["qa_id"]}, []
    for s in walk["searches"]:
        texts.append(await call("search", ck, {"query": s["query"]}, agent))
        if s.get("found"):
            texts.append(await call("access", {}, {"url": s["found"]}, agent))
    rewarder = verl_tool.SearchGymTool({"gym_url": support.URL + "/t/" + support.TOKEN}, None)
    iid, _ = await rewarder.create(create_kwargs=ck)
    f1 = await rewarder.calc_reward(iid, answer=answer, agent_data=agent)
    await rewarder.release(iid)
    return texts, f1


@support.live
class VerlToolTest(unittest.TestCase):
    def test_episodes_equal_the_env_apis(self):
        for walk in support.fixture()["oracle"]:
            for answer in (walk["answer"], "Nowhere At All"):
                texts, f1 = asyncio.run(verl_episode(walk, answer))
                env = SearchGymEnv(support.URL, support.TOKEN)
                try:
                    env.reset(options={"qa_id": walk["qa_id"]})
                    want = [env.step(a)[0] for a in support.oracle_actions({**walk, "answer": answer})[:-1]]
                    _, reward, terminated, _, info = env.step(f"<answer>{answer}</answer>")
                finally:
                    env.close()
                self.assertEqual(texts, want)
                self.assertTrue(terminated)
                self.assertEqual(f1, float(info["metrics"]["f1"]))
                self.assertEqual(f1, reward)
        self.assertEqual(verl_tool._ENVS, {})
        from searchgym import SearchGymClient
        self.assertEqual(SearchGymClient(support.URL, support.TOKEN).health()["envs"], 0)


if __name__ == "__main__":
    unittest.main()
