"""tests/test_verl_tool: the verl tool module (searchgym.verl_tool, the file `world export --format verl` copies) on the
live gym server, driven as verl's tool agent loop drives it (verl b178a3c tool_agent_loop.py: one AgentData per
trajectory, :54-92, with its request_id, the row's tools_kwargs and extra_fields; create / execute / release around
every call, :427-442; a turn's calls run concurrently, :285-292): its episode's observations and reward equal the same
actions' through the env API (SearchGymEnv); more trajectories than a `gym serve --max-envs 3` holds end with no env open
and every reward computed; execute never blocks the event loop; a first call that is access works; a vanished
trajectory's env is reaped within its idle expiry; compute_score survives an env that is gone or a full gym."""
import asyncio
import threading
import time
import unittest
import uuid

import support
from searchgym import SearchGymClient, SearchGymEnv
from searchgym import verl_tool


class AgentData:  # the one field the exported replica gives (tests/replicas/verl_gym_episodes.py)
    def __init__(self):
        self.request_id = uuid.uuid4().hex


class VerlAgentData:  # the fields verl's AgentData has that the tool reads (tool_agent_loop.py:64-92)
    def __init__(self, tools_kwargs):
        self.request_id = uuid.uuid4().hex
        self.tools_kwargs = tools_kwargs
        self.extra_fields = {}


async def call(action, create_kwargs, args, agent, url=None, **config):
    tool = verl_tool.SearchGymTool({"gym_url": url or support.URL + "/t/" + support.TOKEN, "action": action, **config}, None)
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


def env_api_texts(actions):
    env = SearchGymEnv(support.URL, support.TOKEN)
    try:
        env.reset(options={"qa_id": actions[0]})
        return [env.step(a)[0] for a in actions[1:]]
    finally:
        env.close()


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
        self.assertEqual(SearchGymClient(support.URL, support.TOKEN).health()["envs"], 0)

    def test_first_call_access_reads_the_question_from_tools_kwargs(self):
        walk = next(w for w in support.fixture()["oracle"] if any(s.get("found") for s in w["searches"]))
        url = next(s["found"] for s in walk["searches"] if s.get("found"))
        # As the export writes a row: the question under tools_kwargs.search only; the access call has no create_kwargs.
        agent = VerlAgentData({"search": {"create_kwargs": {"qa_id": walk["qa_id"]}}})
        got = asyncio.run(call("access", {}, {"url": url}, agent))
        self.assertEqual(got, env_api_texts([walk["qa_id"], support.tool_call("access", url=url)])[0])
        # No question anywhere: a message that says what the row lacks, and no env opened.
        lost = asyncio.run(call("access", {}, {"url": url}, VerlAgentData({})))
        self.assertEqual(lost, verl_tool.NO_QA_ID)
        self.assertEqual(verl_tool._ENVS, {})

    def test_a_turns_concurrent_calls_play_in_order(self):
        walk = support.fixture()["oracle"][0]
        ck = {"qa_id": walk["qa_id"]}
        agent = VerlAgentData({"search": {"create_kwargs": ck}})
        queries = [walk["question"], walk["searches"][0]["query"]]

        async def turn():
            return await asyncio.gather(*(call("search", ck, {"query": q}, agent) for q in queries))

        got = asyncio.run(turn())
        self.assertEqual(got, env_api_texts([walk["qa_id"]] + [support.tool_call("search", query=q) for q in queries]))
        self.assertEqual(len(agent.extra_fields["searchgym"].actions), 2)


@support.live
class VerlToolEnvCapTest(unittest.TestCase):
    """A server of its own that holds at most 3 envs (gym serve --max-envs 3): verl runs many trajectories at once."""

    CAP = 3

    @classmethod
    def setUpClass(cls):
        cls.gym = support.GymServe(["--max-envs", str(cls.CAP), "--token", "cap-tok", "--workers", "1"])
        cls.url = cls.gym.url + "/t/cap-tok"
        cls.client = SearchGymClient(cls.gym.url, "cap-tok")

    @classmethod
    def tearDownClass(cls):
        cls.gym.stop()

    def test_more_trajectories_than_the_cap_end_with_no_env_open_and_every_reward(self):
        walks = support.fixture()["oracle"]
        # 4 x cap trajectories, all at once: gold and wrong answers of each oracle walk, twice.
        plays = [(w, a) for w in walks for a in (w["answer"], "Nowhere At All")] * 2
        self.assertGreater(len(plays), 3 * self.CAP)

        async def trajectory(walk, answer):
            ck = {"qa_id": walk["qa_id"]}
            agent = VerlAgentData({"search": {"create_kwargs": ck}})
            for s in walk["searches"]:
                await call("search", ck, {"query": s["query"]}, agent, url=self.url)
                if s.get("found"):
                    await call("access", {}, {"url": s["found"]}, agent, url=self.url)
            # verl's reward step: the sync reward function on an executor (naive.py:75-84).
            solution = f"<think>done</think><answer>{answer}</answer>"
            return await asyncio.to_thread(verl_tool.compute_score, "searchR1_x", solution, None, {"qa_id": walk["qa_id"]}, gym_url=self.url)

        async def all_of_them():
            return await asyncio.gather(*(trajectory(w, a) for w, a in plays))

        statuses, request = [], verl_tool._request

        def counted(url, *args, **kwargs):  # every HTTP call the tool and the reward make, by its status
            out = request(url, *args, **kwargs)
            statuses.append(out[0])
            return out

        before = self.client.health()
        verl_tool._request = counted
        try:
            t0 = time.monotonic()
            rewards = asyncio.run(all_of_them())
            took = time.monotonic() - t0
        finally:
            verl_tool._request = request
        print(f"\n  {len(plays)} trajectories at once through a gym of {self.CAP} envs: {took:.2f} s, {len(statuses)} HTTP calls, "
              f"{statuses.count(429)} creates told to wait (429)", flush=True)
        self.assertEqual(rewards, [1.0 if a == w["answer"] else 0.0 for w, a in plays])
        self.assertGreater(statuses.count(429), 0)  # the cap was reached, and waited for
        self.assertEqual(set(statuses) - {200, 201, 429}, set())  # nothing else went wrong (no 404 of a vanished env)
        health = self.client.health()
        # Every env closed by its release or by the reward, none left for the gym to reap.
        self.assertEqual((health["envs"], health["reaped"]), (0, before["reaped"]))
        self.assertEqual(verl_tool._ENVS, {})

    def test_a_vanished_trajectorys_env_is_reaped_within_its_idle_expiry(self):
        walk = support.fixture()["oracle"][0]
        before = self.client.health()
        tool = verl_tool.SearchGymTool({"gym_url": self.url, "action": "search", "env_idle_seconds": 1}, None)

        async def vanish():  # execute, then the worker dies: no release
            iid, _ = await tool.create(create_kwargs={"qa_id": walk["qa_id"]})
            await tool.execute(iid, {"query": walk["question"]}, agent_data=VerlAgentData({}))
            return iid

        iid = asyncio.run(vanish())
        self.assertEqual(self.client.health()["envs"], before["envs"] + 1)
        time.sleep(2.0)
        health = self.client.health()
        self.assertEqual((health["envs"], health["reaped"]), (before["envs"], before["reaped"] + 1))
        verl_tool._ENVS.pop(iid)


@support.live
class VerlToolFullCapTest(unittest.TestCase):
    """More calls waiting for a free env than the tool's thread pool holds (verl_tool._POOL, 64 threads, as shipped): a gym
    of 8 envs (gym serve --max-envs 8) and 100 trajectories at once, each call of each one created, replayed, stepped and
    released as verl's agent loop does, then scored by compute_score as verl's reward step does (on an executor). A
    wait for a free env must not hold a thread that a step or a close needs: every trajectory ends, every reward is
    computed, no observation is a 429, no env is left open."""

    CAP, N = 8, 100

    @classmethod
    def setUpClass(cls):
        cls.gym = support.GymServe(["--max-envs", str(cls.CAP), "--token", "full-tok", "--workers", "1"])
        cls.url = cls.gym.url + "/t/full-tok"
        cls.client = SearchGymClient(cls.gym.url, "full-tok")

    @classmethod
    def tearDownClass(cls):
        cls.gym.stop()

    def test_more_waiting_calls_than_pool_threads(self):
        walks = support.fixture()["oracle"]
        plays = [(w, a) for w in walks for a in (w["answer"], "Nowhere At All")]
        plays = (plays * (self.N // len(plays) + 1))[: self.N]
        self.assertGreater(self.N, verl_tool._POOL._max_workers + self.CAP)
        texts, answers = [], []

        async def trajectory(walk, answer):
            ck = {"qa_id": walk["qa_id"]}
            agent = VerlAgentData({"search": {"create_kwargs": ck}})
            for s in walk["searches"]:
                texts.append(await call("search", ck, {"query": s["query"]}, agent, url=self.url, timeout=10))
                if s.get("found"):
                    texts.append(await call("access", {}, {"url": s["found"]}, agent, url=self.url, timeout=10))
            solution = f"<think>done</think><answer>{answer}</answer>"
            return await asyncio.to_thread(verl_tool.compute_score, "searchR1_x", solution, None, {"qa_id": walk["qa_id"]}, gym_url=self.url, timeout=10)

        async def all_of_them():
            return await asyncio.gather(*(trajectory(w, a) for w, a in plays), return_exceptions=True)

        request = verl_tool._request

        def counted(url, *args, **kwargs):
            out = request(url, *args, **kwargs)
            answers.append(out)
            return out

        before = self.client.health()
        verl_tool._request = counted
        try:
            t0 = time.monotonic()
            rewards = asyncio.run(all_of_them())
            took = time.monotonic() - t0
        finally:
            verl_tool._request = request
        refused = [a for a in answers if a[0] == 429]
        print(f"\n  {self.N} trajectories at once through a gym of {self.CAP} envs and a pool of {verl_tool._POOL._max_workers} threads: "
              f"{took:.1f} s, {len(answers)} HTTP calls, {len(refused)} creates told to wait (429)", flush=True)
        errors = [r for r in rewards if isinstance(r, BaseException)]
        self.assertEqual(errors, [])  # compute_score never raised
        self.assertEqual(rewards, [1.0 if a == w["answer"] else 0.0 for w, a in plays])
        self.assertEqual([t for t in texts if "429" in t or "gym error" in t], [])
        self.assertGreater(len(refused), 0)  # the cap was reached, and waited for
        self.assertEqual({getattr(a, "retry_after", None) for a in refused}, {1.0})  # every 429 said when to come back
        health = self.client.health()
        self.assertEqual((health["envs"], health["reaped"]), (0, before["reaped"]))
        self.assertEqual(verl_tool._ENVS, {})


class VerlToolStubTest(unittest.TestCase):
    CREATED = (201, {"envId": "env_1", "observation": [], "tools": []}, {})
    STEP = (200, {"observation": [{"role": "tool", "content": "slow page"}], "metrics": {"turn": 1, "f1": 1.0}}, {})
    CLOSED = (200, {"closed": True}, {})

    def test_execute_does_not_block_the_event_loop(self):
        s = support.StubServer([self.CREATED, self.STEP, self.CLOSED], delay=0.4)  # each answer takes 0.4 s
        try:
            async def ticking(work):
                ticks, stop = [], asyncio.Event()

                async def ticker():
                    while not stop.is_set():
                        ticks.append(time.monotonic())
                        await asyncio.sleep(0.01)

                t = asyncio.create_task(ticker())
                await asyncio.sleep(0)
                t0 = time.monotonic()
                out = await work()
                took = time.monotonic() - t0
                stop.set()
                await t
                gaps = [b - a for a, b in zip(ticks, ticks[1:])]
                return out, took, len(ticks), max(gaps or [took])

            text, took, n, gap = asyncio.run(ticking(lambda: call("search", {"qa_id": "q"}, {"query": "x"}, VerlAgentData({}), url=s.url)))
            print(f"\n  execute + release over a 0.4 s/answer gym: {took:.2f} s, timer ticked {n} times, longest gap {gap * 1000:.0f} ms", flush=True)
            self.assertEqual(text, "slow page")
            self.assertGreaterEqual(took, 1.2)  # create, step, close: three slow answers
            self.assertLess(gap, 0.25)  # 10 ms ticks; blocking would be one 0.4 s gap per answer
            self.assertGreater(n, 40)
            self.assertEqual([r[:2] for r in s.requests], [("POST", "/v1/envs"), ("POST", "/v1/envs/env_1/step"), ("DELETE", "/v1/envs/env_1")])

            # The timer is a real probe: the same call made blocking (urllib on the loop) stops it for the whole answer.
            s.script = [self.CREATED]

            async def blocking():
                return verl_tool._request(s.url + "/v1/envs", {"qaId": "q"}, 5)

            _, _, _, gap = asyncio.run(ticking(blocking))
            self.assertGreater(gap, 0.35)
        finally:
            s.close()

    def test_a_429_is_retried_after_its_retry_after_and_the_wait_holds_no_thread(self):
        full = (429, {"error": {"message": "too many open envs (1)", "code": "env.limit"}}, {"Retry-After": "1"})
        s = support.StubServer([full, self.CREATED, self.STEP, self.CLOSED])
        try:
            async def waiter_and_others():
                w = asyncio.ensure_future(call("search", {"qa_id": "q"}, {"query": "x"}, VerlAgentData({}), url=s.url))
                await asyncio.sleep(0.3)
                # While that call waits out the Retry-After, all 64 pool threads can run at once (a wait that slept in a
                # thread would leave 63, and the barrier would break).
                n = verl_tool._POOL._max_workers
                barrier = threading.Barrier(n, timeout=0.5)
                loop = asyncio.get_running_loop()
                met = await asyncio.gather(*(loop.run_in_executor(verl_tool._POOL, barrier.wait) for _ in range(n)), return_exceptions=True)
                return await w, met

            t0 = time.monotonic()
            text, met = asyncio.run(waiter_and_others())
            took = time.monotonic() - t0
            self.assertEqual(text, "slow page")
            self.assertEqual([m for m in met if isinstance(m, BaseException)], [])
            self.assertEqual([r[:2] for r in s.requests], [("POST", "/v1/envs")] * 2 + [("POST", "/v1/envs/env_1/step"), ("DELETE", "/v1/envs/env_1")])
            self.assertGreaterEqual(s.requests[1][4] - s.requests[0][4], 1.0)  # the second create came after the Retry-After
            self.assertLess(took, 5)
        finally:
            s.close()

    def test_compute_score_survives_an_env_that_is_gone_and_a_full_gym(self):
        gone = (404, {"error": {"message": "env expired after 1000 ms idle", "code": "env.expired"}}, {})
        full = (429, {"error": {"message": "too many open envs (3)", "code": "env.limit"}}, {})
        s = support.StubServer([full, full, self.CREATED, gone, gone, self.CREATED, self.STEP, self.CLOSED])
        try:
            score = verl_tool.compute_score("x", "<answer>Paris</answer>", None, {"qa_id": "q"}, gym_url=s.url, timeout=5)
            self.assertEqual(score, 1.0)
            self.assertEqual([r[:2] for r in s.requests], [("POST", "/v1/envs")] * 3 + [("POST", "/v1/envs/env_1/step"), ("DELETE", "/v1/envs/env_1"),
                             ("POST", "/v1/envs"), ("POST", "/v1/envs/env_1/step"), ("DELETE", "/v1/envs/env_1")])
            # Without an answer or a qa_id: 0.0, and the gym is not asked.
            n = len(s.requests)
            self.assertEqual(verl_tool.compute_score("x", "no answer here", None, {"qa_id": "q"}, gym_url=s.url), 0.0)
            self.assertEqual(verl_tool.compute_score("x", "<answer>a</answer>", None, {}, gym_url=s.url), 0.0)
            self.assertEqual(len(s.requests), n)
        finally:
            s.close()
        # A gym that is not there: an error that names it, not a made-up 0.
        with self.assertRaisesRegex(RuntimeError, "cannot score.*unreachable"):
            verl_tool.compute_score("x", "<answer>a</answer>", None, {"qa_id": "q"}, gym_url=s.url, timeout=2)


if __name__ == "__main__":
    unittest.main()
