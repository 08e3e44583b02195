"""tests/support: what the suite shares — searchgym importable from ../src, the live gym server's URL, token and
fixture (set by tests/python-package.test.ts, which starts a real `searchgym gym serve`), a gym server of a test's own
(GymServe: the same world, its own flags), and a stub HTTP server.

Environment: SEARCHGYM_TEST_URL, SEARCHGYM_TEST_TOKEN, SEARCHGYM_TEST_FIXTURE (a JSON file: oracle walks and gold
answers), SEARCHGYM_TEST_CLI (the searchgym CLI's argv as JSON), SEARCHGYM_TEST_WORLD (the world folder the live server
serves). Without them the live tests are skipped.
"""
from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)

URL = os.environ.get("SEARCHGYM_TEST_URL")
WORLD = os.environ.get("SEARCHGYM_TEST_WORLD")
TOKEN = os.environ.get("SEARCHGYM_TEST_TOKEN", "")
live = unittest.skipUnless(URL, "no gym server: run through tests/python-package.test.ts (sets SEARCHGYM_TEST_URL)")


def fixture() -> dict:
    with open(os.environ["SEARCHGYM_TEST_FIXTURE"], encoding="utf-8") as f:
        return json.load(f)


def cli() -> list:
    return json.loads(os.environ["SEARCHGYM_TEST_CLI"])


def tool_call(name: str, **arguments) -> str:
    """One Hermes tool call, as the gym's default protocol reads it."""
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def oracle_actions(walk: dict) -> list:
    """The oracle's turns for one question: each search, the page it found opened, then the answer it read."""
    out = []
    for s in walk["searches"]:
        out.append(tool_call("search", query=s["query"]))
        if s.get("found"):
            out.append(tool_call("access", url=s["found"]))
    out.append(f"<answer>{walk['answer']}</answer>")
    return out


class GymServe:
    """`searchgym gym serve WORLD --port 0 ARGS` of a test's own (real HTTP over loopback); stopped by its own pid."""

    def __init__(self, args, timeout=120):
        self.proc = subprocess.Popen(cli() + ["gym", "serve", WORLD, "--port", "0", *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.stderr, found = [], threading.Event()

        def drain():  # read stderr to its end, so the server never blocks on a full pipe
            for line in self.proc.stderr:
                self.stderr.append(line)
                m = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
                if m and not found.is_set():
                    self.url = m.group(1)
                    found.set()

        threading.Thread(target=drain, daemon=True).start()
        t0 = time.monotonic()
        while not found.wait(0.1):
            if self.proc.poll() is not None or time.monotonic() - t0 > timeout:
                self.stop()
                raise RuntimeError("gym serve did not start: " + "".join(self.stderr)[-2000:])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class StubServer:
    """A loopback HTTP server answering each request with the next (status, body, headers) of a script, each after
    `delay` seconds (a slow gym); `requests` holds (method, path, headers, body, arrival time) of each."""

    def __init__(self, script, delay=0.0):
        self.script = list(script)
        self.requests = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                time.sleep(delay)
                n = int(self.headers.get("content-length") or 0)
                stub.requests.append((self.command, self.path, dict(self.headers), self.rfile.read(n) if n else b"", time.monotonic()))
                status, body, headers = stub.script.pop(0) if stub.script else (500, {"error": {"message": "script ran out", "code": "stub"}}, {})
                data = json.dumps(body).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
