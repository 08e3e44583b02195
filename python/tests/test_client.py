"""tests/test_client: SearchGymClient against a stub server (token header, retries on 429/503, typed one-line errors,
transport failures) and against the live gym server (the env API, /v1/search, /v1/access, /retrieve, /access)."""
import socket
import time
import unittest

import support
from searchgym import (AuthenticationError, BadRequestError, NotFoundError, RateLimitError, SearchGymClient, SearchGymError, ServerError,
                       TransportError)


class StubbedClientTest(unittest.TestCase):
    def test_token_header_and_retry_after_429_and_503(self):
        s = support.StubServer([(429, {"error": {"message": "too many envs", "code": "env.limit"}}, {"Retry-After": "0"}),
                                (503, {"error": {"message": "engine down", "code": "search.meili_unreachable"}}, {}),
                                (200, {"results": [{"title": "A", "url": "u"}]}, {})])
        try:
            c = SearchGymClient(s.url, "tok", backoff=0.001)
            self.assertEqual(c.search("x", k=1), [{"title": "A", "url": "u"}])
            self.assertEqual(len(s.requests), 3)
            self.assertEqual(s.requests[0][2].get("Authorization"), "Bearer tok")
            self.assertEqual(s.requests[0][2].get("Content-Type"), "application/json")
        finally:
            s.close()

    def test_retries_run_out_into_typed_errors(self):
        s = support.StubServer([(429, {"error": {"message": "too many envs", "code": "env.limit"}}, {})] * 3
                               + [(503, {"error": {"message": "engine down", "code": "search.x"}}, {})])
        try:
            c = SearchGymClient(s.url, "", retries=2, backoff=0.001)
            with self.assertRaises(RateLimitError) as e:
                c.create_env("q1")
            self.assertEqual((e.exception.status, e.exception.code), (429, "env.limit"))
            self.assertEqual(str(e.exception), "searchgym: POST /v1/envs answered 429 env.limit: too many envs")
            self.assertEqual(len(s.requests), 3)
            with self.assertRaises(ServerError):
                SearchGymClient(s.url, "", retries=0).search("x")
            self.assertNotIn("Authorization", s.requests[-1][2])
        finally:
            s.close()

    def test_other_statuses_are_not_retried(self):
        s = support.StubServer([(400, {"error": {"message": "unknown field \"x\"", "code": "request.unknown_field", "param": "x"}}, {})])
        try:
            with self.assertRaises(BadRequestError) as e:
                SearchGymClient(s.url, "", backoff=0.001).search("x")
            self.assertEqual(e.exception.param, "x")
            self.assertEqual(len(s.requests), 1)
        finally:
            s.close()

    def test_unreachable_server_is_a_transport_error(self):
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        t0 = time.monotonic()
        with self.assertRaises(TransportError) as e:
            SearchGymClient(f"http://127.0.0.1:{port}", "", retries=2, backoff=0.001).health()
        self.assertIn("is `searchgym gym serve` running there?", str(e.exception))
        self.assertNotIn("\n", str(e.exception))
        self.assertLess(time.monotonic() - t0, 5)
        with self.assertRaises(TransportError):  # a step is not retried after a transport failure
            SearchGymClient(f"http://127.0.0.1:{port}", "", retries=0).step("env_x", "hi")

    def test_bad_settings(self):
        with self.assertRaises(SearchGymError):
            SearchGymClient("localhost:8000")
        with self.assertRaises(SearchGymError):
            SearchGymClient("http://x", timeout=0)


@support.live
class LiveClientTest(unittest.TestCase):
    def setUp(self):
        self.c = SearchGymClient(support.URL, support.TOKEN)

    def test_health_and_qa(self):
        self.assertEqual(self.c.health()["status"], "ok")
        qa = self.c.list_qa("train", limit=2)
        self.assertGreater(qa["total"], 2)
        self.assertEqual(sorted(qa["items"][0]), ["hops", "id", "question", "split", "type"])

    def test_create_reply_carries_the_question(self):
        first = self.c.list_qa("train", limit=1)["items"][0]
        env = self.c.create_env(split="train", index=0)
        try:
            self.assertEqual(env["qa"], first)
            self.assertIn(first["question"], env["observation"][-1]["content"])
        finally:
            self.c.close_env(env["envId"])
        with self.assertRaises(NotFoundError):
            self.c.close_env(env["envId"])

    def test_stateless_tools(self):
        q = self.c.list_qa("train", limit=1)["items"][0]["question"]
        hits = self.c.search(q, k=3)
        self.assertEqual(len(hits), 3)
        page = self.c.access(hits[0]["url"])
        self.assertEqual(page["url"], hits[0]["url"])
        with self.assertRaises(NotFoundError):
            self.c.access("https://nowhere.example/x")
        r = self.c.retrieve([q, q], topk=2, return_scores=True)
        self.assertEqual([len(x) for x in r], [2, 2])
        self.assertEqual(r[0][0]["document"]["contents"].split("\n")[0], hits[0]["title"])
        self.assertEqual(self.c.access_many([hits[0]["url"], "https://nowhere.example/x"])[1], None)

    def test_wrong_token(self):
        with self.assertRaises(AuthenticationError) as e:
            SearchGymClient(support.URL, "wrong").list_qa()
        self.assertEqual(e.exception.code, "auth.unauthorized")
        self.assertEqual(SearchGymClient(support.URL, "wrong").health(), {"status": "up"})  # /health without the token: only up/down


if __name__ == "__main__":
    unittest.main()
