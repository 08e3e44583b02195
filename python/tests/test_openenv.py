"""tests/test_openenv: searchgym.openenv — SearchGymEnv, the client of the gym's OpenEnv face, plays whole episodes on
the live gym server without OpenEnv (the package's own twins over searchgym._ws) and with the OpenEnv stand-in
installed (tests/standin/openenv, written from OpenEnv's code: SearchGymEnv then subclasses its EnvClient): the
oracle's walks score 1.0, a wrong answer 0, a budget truncates, the state follows, a step after the end and a wrong
token are errors; both ways give the same answers. And searchgym._ws against a scripted socket: ping, fragments, close.
"""
import base64
import hashlib
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import unittest

import support
from searchgym._ws import GUID, ConnectionClosed, HandshakeError, WebSocket

SCRIPT = r"""
import json, sys
from searchgym.openenv import HAVE_OPENENV, SearchGymAction, SearchGymEnv
url, token, walks = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
out = {"have_openenv": HAVE_OPENENV, "base": SearchGymEnv.__mro__[1].__module__, "rewards": [], "f1": [], "gold_seen": False}
with SearchGymEnv(base_url=url, token=token).sync() as env:
    for i, w in enumerate(walks):
        r = env.reset(qa_id=w["qa_id"])
        assert r.observation.question == w["question"] and r.reward is None and not r.done, r
        acts = []
        for s in w["searches"]:
            acts.append(SearchGymAction(tool_name="search", arguments={"query": s["query"]}) if i % 2 else
                        '<tool_call>' + json.dumps({"name": "search", "arguments": {"query": s["query"]}}) + '</tool_call>')
            if s.get("found"):
                acts.append({"tool_name": "access", "arguments": {"url": s["found"]}})
        acts.append(SearchGymAction(text="<answer>" + w["answer"] + "</answer>"))
        for a in acts:
            r = env.step(a)
            out["gold_seen"] |= any(k.startswith("signal/") for k in (r.observation.metrics or {})) or "gold" in (r.observation.logs or {})
        out["rewards"].append(r.reward)
        out["f1"].append(r.observation.metrics["f1"])
        st = env.state()
        out.setdefault("states", []).append([st.qa_id, st.step_count, st.done, st.reward, st.stop_reason])
    try:
        env.step("<answer>again</answer>")
        out["after_done"] = None
    except RuntimeError as e:
        out["after_done"] = str(e)
    env.reset(qa_id=walks[0]["qa_id"])
    r = env.step("<answer>Nowhere At All</answer>")
    out["wrong"] = [r.reward, r.done, r.observation.terminated, r.observation.metrics["f1"]]
    env.reset(qa_id=walks[0]["qa_id"], options={"budgets": {"maxTurns": 2}})
    seq = []
    for t in ["I am not sure.", "still thinking"]:
        r = env.step(t)
        seq.append([r.reward, r.done, r.observation.truncated, r.observation.stop_reason])
    out["budget"] = seq
    tools = env.step({"type": "list_tools"})
    out["tools"] = [t["name"] for t in tools.observation.tools]
try:
    with SearchGymEnv(base_url=url, token=token + "-wrong").sync():
        pass
    out["bad_token"] = None
except ConnectionError as e:
    out["bad_token"] = "401" in str(e)
    out["token_hidden"] = (token + "-wrong") not in str(e)
print(json.dumps(out))
"""


def run(paths, *args):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
    r = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=120, env=env)
    if r.returncode != 0:
        raise AssertionError(r.stderr[-3000:])
    return json.loads(r.stdout)


@support.live
class OpenEnvClientTest(unittest.TestCase):
    def check(self, got, walks):
        self.assertEqual(got["rewards"], [1.0] * len(walks))
        self.assertEqual(got["f1"], [1] * len(walks))
        self.assertFalse(got["gold_seen"])
        self.assertEqual([s[:3] for s in got["states"]], [[w["qa_id"], len(support.oracle_actions(w)), True] for w in walks])
        self.assertEqual({s[3] for s in got["states"]}, {1})
        self.assertRegex(got["after_done"], r"the episode has ended .*\(code: EXECUTION_ERROR\)")
        self.assertEqual(got["wrong"], [0, True, True, 0])
        self.assertEqual(got["budget"], [[0, False, False, None], [0, True, True, "max_turns"]])
        self.assertEqual(got["tools"], ["search", "access", "answer"])
        self.assertIs(got["bad_token"], True)

    def test_episodes_without_openenv(self):
        walks = support.fixture()["oracle"]
        got = run([support.SRC], support.URL, support.TOKEN, json.dumps(walks))
        self.assertEqual((got["have_openenv"], got["base"]), (False, "searchgym.openenv"))
        self.check(got, walks)
        self.assertIs(got["token_hidden"], True)  # OpenEnv's own client prints the URL, token and all

    def test_episodes_with_the_openenv_standin_and_the_same_answers(self):
        walks = support.fixture()["oracle"]
        got = run([os.path.join(support.HERE, "standin"), support.SRC], support.URL, support.TOKEN, json.dumps(walks))
        self.assertEqual((got["have_openenv"], got["base"]), (True, "openenv.core.env_client"))
        self.check(got, walks)
        alone = run([support.SRC], support.URL, support.TOKEN, json.dumps(walks))
        for k in ("rewards", "f1", "wrong", "budget", "tools"):
            self.assertEqual(got[k], alone[k], k)


class PayloadTest(unittest.TestCase):
    def test_actions_and_results(self):
        from searchgym.openenv import SearchGymAction, SearchGymEnv

        env = SearchGymEnv(base_url="http://127.0.0.1:1", token="t/k")
        self.assertEqual(env._ws_url, "ws://127.0.0.1:1/t/t%2Fk/ws")
        self.assertEqual(env._step_payload("<answer>x</answer>"), {"text": "<answer>x</answer>"})
        self.assertEqual(env._step_payload(SearchGymAction(tool_name="search", arguments={"query": "q"})), {"tool_name": "search", "arguments": {"query": "q"}})
        with self.assertRaises(ValueError):
            SearchGymAction(txt="typo")
        r = env._parse_result({"observation": {"text": "t", "messages": [], "a_later_field": 1}, "reward": 0.5, "done": True})
        self.assertEqual((r.reward, r.done, r.observation.text, r.observation.done, r.observation.reward), (0.5, True, "t", True, 0.5))
        with self.assertRaises(TypeError):
            env._step_payload(3)


class ScriptedSocket:
    """A loopback server that answers the handshake (or refuses it) and then sends scripted frames."""

    def __init__(self, frames, refuse=None):
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(1)
        self.url = f"ws://127.0.0.1:{self.srv.getsockname()[1]}/ws"
        self.received = []
        self.thread = threading.Thread(target=self._serve, args=(frames, refuse), daemon=True)
        self.thread.start()

    def _serve(self, frames, refuse):
        c, _ = self.srv.accept()
        data = b""
        while b"\r\n\r\n" not in data:
            data += c.recv(4096)
        if refuse:
            body = json.dumps({"detail": refuse[1]}).encode()
            c.sendall(f"HTTP/1.1 {refuse[0]} No\r\ncontent-length: {len(body)}\r\n\r\n".encode() + body)
            c.close()
            return
        key = [line.split(":", 1)[1].strip() for line in data.decode().split("\r\n") if line.lower().startswith("sec-websocket-key")][0]
        accept = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
        c.sendall(f"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n".encode())
        for f in frames:
            c.sendall(f)
        c.settimeout(2)
        try:
            while True:
                chunk = c.recv(4096)
                if not chunk:
                    break
                self.received.append(chunk)
        except OSError:
            pass
        c.close()


def frame(op, payload, fin=True):
    n = len(payload)
    return bytes([(0x80 if fin else 0) | op]) + (bytes([n]) if n < 126 else bytes([126]) + struct.pack("!H", n)) + payload


def unmask(raw):
    n = raw[1] & 0x7F
    mask, body = raw[2:6], raw[6:6 + n]
    return raw[0] & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(body))


class WebSocketFramingTest(unittest.TestCase):
    def test_ping_fragments_and_close(self):
        s = ScriptedSocket([frame(0x9, b"hi"), frame(0x1, "Grüß ".encode(), fin=False), frame(0x0, b"x" * 300), frame(0x8, struct.pack("!H", 1000) + b"bye")])
        ws = WebSocket.connect(s.url, timeout=5)
        self.assertEqual(ws.recv(), "Grüß " + "x" * 300)
        with self.assertRaises(ConnectionClosed) as e:
            ws.recv()
        self.assertEqual((e.exception.code, e.exception.reason), (1000, "bye"))
        s.thread.join(5)  # the scripted side has read all the client sent (its pong and its close)
        s.srv.close()
        raw = b"".join(s.received)
        self.assertEqual(unmask(raw), (0xA, b"hi"))  # the pong echoes the ping, masked

    def test_a_refused_handshake_carries_status_and_body(self):
        s = ScriptedSocket([], refuse=(401, "missing or wrong token"))
        with self.assertRaises(HandshakeError) as e:
            WebSocket.connect(s.url, timeout=5)
        s.srv.close()
        self.assertEqual(e.exception.status, 401)
        self.assertIn("missing or wrong token", e.exception.body)

    def test_a_message_over_the_cap_fails(self):
        s = ScriptedSocket([frame(0x1, b"y" * 200)])
        ws = WebSocket.connect(s.url, timeout=5, max_size=100)
        with self.assertRaisesRegex(Exception, "1009"):
            ws.recv()
        s.srv.close()


if __name__ == "__main__":
    unittest.main()
