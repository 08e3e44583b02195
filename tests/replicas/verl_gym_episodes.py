#!/usr/bin/env python3
# tests/replicas/verl_gym_episodes.py: full episodes through the exported searchgym_verl_tool.py, driven the way verl
# b178a3c's tool agent loop drives a tool (python3 standard library): verl/experimental/agent_loop/tool_agent_loop.py
# :143 one request_id per trajectory, :427-442 create(create_kwargs=tools_kwargs[name]["create_kwargs"]) → execute(
# instance_id, args, agent_data=…) → release(instance_id) around every call. Each episode: search the question,
# access the first result URL, then calc_reward with the answer (the gym's F1); compute_score (the custom reward
# function) scores the same answer on a fresh env. Prints one JSON line per episode.
# Usage: python3 verl_gym_episodes.py TOOL_PY GYM_URL EPISODES_JSON   (EPISODES_JSON: [{qa_id, question, answer}])
import asyncio
import importlib.util
import json
import re
import sys
import uuid


class AgentData:  # the fields the tool reads (tool_agent_loop.py:54-84)
    def __init__(self):
        self.request_id = uuid.uuid4().hex


async def call(tool_cls, config, create_kwargs, args, agent_data):
    tool = tool_cls(config, None)
    iid, _ = await tool.create(create_kwargs=create_kwargs)
    try:
        resp, reward, metrics = await tool.execute(iid, args, agent_data=agent_data)
    finally:
        await tool.release(iid)
    return resp.text


async def episode(mod, gym_url, ep):
    agent = AgentData()
    ck = {"qa_id": ep["qa_id"], "question": ep["question"]}
    search = await call(mod.SearchGymTool, {"gym_url": gym_url, "action": "search"}, ck, {"query": ep["question"]}, agent)
    urls = re.findall(r"^URL: (\S+)$", search, re.M)
    # tools_kwargs has no "access" entry: the access call finds the trajectory's env by its request id.
    page = await call(mod.SearchGymTool, {"gym_url": gym_url, "action": "access"}, {}, {"url": urls[0]}, agent) if urls else ""
    rewarder = mod.SearchGymTool({"gym_url": gym_url, "action": "search"}, None)
    iid, _ = await rewarder.create(create_kwargs=ck)
    f1 = await rewarder.calc_reward(iid, answer=ep["answer"], agent_data=agent)
    await rewarder.release(iid)
    solution = f"<think>done</think><answer> {ep['answer']} </answer>"
    cs = mod.compute_score("searchR1_hotpotqa", solution, None, {"qa_id": ep["qa_id"]}, gym_url=gym_url)
    return {"qa_id": ep["qa_id"], "search_urls": len(urls), "page_starts": page.split("\n")[0], "f1": f1, "compute_score": cs}


def main():
    spec = importlib.util.spec_from_file_location("searchgym_verl_tool", sys.argv[1])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for ep in json.loads(sys.argv[3]):
        print(json.dumps(asyncio.run(episode(mod, sys.argv[2], ep))))
    print(json.dumps({"open_envs": len(mod._ENVS)}))


if __name__ == "__main__":
    main()
