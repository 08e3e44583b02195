#!/usr/bin/env python3
"""bench/perf/verl_tool_cap.py: the verl gym tool (python/src/searchgym/verl_tool.py) under a full env cap.

Starts `searchgym gym serve WORLD --max-envs CAP --workers 1` (this checkout's bin/searchgym.mjs), then plays
TRAJECTORIES trajectories at once on one asyncio loop, each as verl's tool agent loop drives the tool (a fresh tool
instance created, executed and released around every call, per-trajectory extra_fields; verl b178a3c
tool_agent_loop.py:427-442): search the question, open the first page found, search again; then verl's reward step,
compute_score on an executor thread (naive.py:75-84), with the gold answer for half of them and a wrong one for the
other half. Checks and prints: envs open at the end (gym /health), envs the gym reaped, rewards computed (each equal to
1.0 for the gold answer, 0.0 for the wrong one), exceptions from compute_score, observations holding "429" or
"gym error", and the wall time. Python 3 standard library only; exit 1 when a check fails.

  python3 bench/perf/verl_tool_cap.py --world worlds/tiny --max-envs 100 --trajectories 300 [--tool-src python/src]
"""
import argparse
import asyncio
import json
import os
import platform
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class AgentData:  # the fields of verl's AgentData the tool reads (tool_agent_loop.py:64-92)
    def __init__(self, qa_id):
        self.request_id = uuid.uuid4().hex
        self.tools_kwargs = {"search": {"create_kwargs": {"qa_id": qa_id}}}
        self.extra_fields = {}


def start_gym(world, cap):
    cmd = ["node", os.path.join(ROOT, "bin", "searchgym.mjs"), "gym", "serve", world, "--port", "0", "--max-envs", str(cap), "--workers", "1"]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found, box = threading.Event(), {}

    def drain():
        for line in proc.stderr:
            m = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
            if m and not found.is_set():
                box["url"] = m.group(1)
                found.set()

    threading.Thread(target=drain, daemon=True).start()
    if not found.wait(120):
        proc.kill()
        sys.exit("verl_tool_cap: gym serve did not start")
    return proc, box["url"]


def health(url):
    with urllib.request.urlopen(url + "/health", timeout=10) as r:
        return json.loads(r.read())


def served_questions(url, world):
    with urllib.request.urlopen(url + "/v1/qa?split=train&limit=10000", timeout=30) as r:
        items = json.loads(r.read())["items"]
    db = sqlite3.connect(os.path.join(world, "world.db"))
    gold = dict(db.execute("SELECT id, answer FROM qa"))
    db.close()
    return [(q["id"], q["question"], gold[q["id"]]) for q in items]


async def main_async(args, verl_tool):
    proc, url = start_gym(args.world, args.max_envs)
    try:
        qs = served_questions(url, args.world)
        plays = [(qs[i % len(qs)], i % 2 == 0) for i in range(args.trajectories)]
        texts, before = [], health(url)

        async def call(action, params, agent):
            tool = verl_tool.SearchGymTool({"gym_url": url, "action": action, "timeout": args.timeout}, None)
            iid, _ = await tool.create(create_kwargs={"qa_id": agent.tools_kwargs["search"]["create_kwargs"]["qa_id"]} if action == "search" else {})
            try:
                resp, _, _ = await tool.execute(iid, params, agent_data=agent)
            finally:
                await tool.release(iid)
            texts.append(resp.text)
            return resp.text

        async def trajectory(q, gold):
            qa_id, question, answer = q
            agent = AgentData(qa_id)
            obs = await call("search", {"query": question}, agent)
            m = re.search(r"https?://[^\s)\]\"']+", obs)
            if m:
                await call("access", {"url": m.group(0)}, agent)
            await call("search", {"query": " ".join(question.split()[-4:])}, agent)
            solution = f"<think>done</think><answer>{answer if gold else 'Zzyzx Qwv'}</answer>"
            return await asyncio.to_thread(verl_tool.compute_score, "searchR1_hotpotqa", solution, None, {"qa_id": qa_id}, gym_url=url, timeout=args.timeout)

        t0 = time.monotonic()
        rewards = await asyncio.gather(*(trajectory(q, g) for q, g in plays), return_exceptions=True)
        took = time.monotonic() - t0
        after = health(url)
    finally:
        proc.terminate()
        proc.wait(30)
    errors = [r for r in rewards if isinstance(r, BaseException)]
    wrong = sum(1 for r, (_, g) in zip(rewards, plays) if not isinstance(r, BaseException) and r != (1.0 if g else 0.0))
    bad_obs = sum(1 for t in texts if "429" in t or "gym error" in t)
    out = {"max_envs": args.max_envs, "trajectories": args.trajectories, "tool_calls": len(texts), "seconds": round(took, 1),
           "envs_open_at_end": after["envs"], "envs_reaped": after["reaped"] - before["reaped"],
           "rewards_computed": len(rewards) - len(errors), "rewards_not_as_expected": wrong,
           "compute_score_exceptions": len(errors), "observations_with_429_or_gym_error": bad_obs,
           "tool": os.path.abspath(verl_tool.__file__), "machine": f"{platform.node()} {os.cpu_count()} cores, Python {platform.python_version()}",
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    print(json.dumps(out))
    ok = out["envs_open_at_end"] == 0 and not errors and not wrong and not bad_obs and out["envs_reaped"] == 0
    if errors:
        print(f"  first exception: {errors[0]!r}", file=sys.stderr)
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--world", required=True)
    ap.add_argument("--max-envs", type=int, required=True)
    ap.add_argument("--trajectories", type=int, required=True)
    ap.add_argument("--timeout", type=float, default=30, help="the tool's and compute_score's per-call timeout (s)")
    ap.add_argument("--tool-src", default=os.path.join(ROOT, "python", "src"), help="the folder searchgym/verl_tool.py is imported from")
    args = ap.parse_args()
    if not os.path.isfile(os.path.join(args.world, "world.db")):
        sys.exit(f"verl_tool_cap: {args.world} holds no world.db")
    sys.path.insert(0, args.tool_src)
    from searchgym import verl_tool  # noqa: PLC0415

    return asyncio.run(main_async(args, verl_tool))


if __name__ == "__main__":
    sys.exit(main())
