"""tests/test_client_hostile: SearchGymClient against real misbehaving HTTP servers on loopback (issue 59, item 4) —
raw sockets that answer what a broken or hostile server answers. On c3906aa: the token followed a redirect to another
port, a server sending a byte a second held a timeout=1 client indefinitely, an endless body was read without end,
a 200 with [] / {} / null raised TypeError or KeyError, and a Retry-After of -5 or nan raised ValueError."""
import json
import socket
import threading
import time
import unittest

import support  # noqa: F401  (puts ../src on sys.path)
from searchgym import BadReplyError, SearchGymClient, SearchGymError, TransportError
from searchgym.client import retry_wait


class RawServer:
    """A loopback TCP server: each connection's request head is read (and recorded), then `answer(conn, head)` writes
    whatever it wants, as slowly as it wants."""

    def __init__(self, answer):
        self.heads = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.closed = False

        def serve():
            while not self.closed:
                try:
                    conn, _ = self.sock.accept()
                except OSError:
                    return
                threading.Thread(target=self._one, args=(conn, answer), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()

    def _one(self, conn, answer):
        try:
            buf = b""
            while b"\r\n\r\n" not in buf:
                d = conn.recv(65536)
                if not d:
                    return
                buf += d
            head = buf.split(b"\r\n\r\n", 1)[0].decode("latin-1")
            self.heads.append(head)
            answer(conn, head)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self):
        self.closed = True
        self.sock.close()


def reply(status, body, headers=()):
    def answer(conn, head):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        extra = "".join(f"{k}: {v}\r\n" for k, v in headers)
        conn.sendall(f"HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {len(data)}\r\n{extra}connection: close\r\n\r\n".encode() + data)
    return answer


class HostileServerTest(unittest.TestCase):
    def test_a_redirect_is_not_followed_and_the_token_goes_nowhere_else(self):
        elsewhere = RawServer(reply(200, {"results": []}))
        s = RawServer(reply(307, {}, [("location", elsewhere.url + "/v1/search")]))
        try:
            with self.assertRaises(BadReplyError) as e:
                SearchGymClient(s.url, "secret-token", retries=0).search("x")
            self.assertEqual(e.exception.code, "client.redirect")
            self.assertIn("not followed", str(e.exception))
            time.sleep(0.2)
            self.assertEqual(elsewhere.heads, [])
            self.assertIn("Authorization: Bearer secret-token", s.heads[0])
        finally:
            s.close()
            elsewhere.close()

    def test_timeout_is_a_deadline_for_the_whole_answer(self):
        def trickle_body(conn, head):
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\n\r\n")
            for _ in range(100):
                conn.sendall(b" ")
                time.sleep(0.2)

        def trickle_head(conn, head):
            for c in b"HTTP/1.1 200 OK\r\nx-slow: " + b"a" * 100:
                conn.sendall(bytes([c]))
                time.sleep(0.2)

        for answer in (trickle_body, trickle_head):
            s = RawServer(answer)
            try:
                t0 = time.monotonic()
                with self.assertRaises(TransportError) as e:
                    SearchGymClient(s.url, "", timeout=1.0, retries=0).health()
                self.assertLess(time.monotonic() - t0, 2.5)
                self.assertIn("no whole answer within 1 s", str(e.exception))
            finally:
                s.close()

    def test_an_endless_body_is_refused_at_the_size_cap(self):
        def endless(conn, head):
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n[")
            block = b"0," * 32768
            while True:
                conn.sendall(block)

        s = RawServer(endless)
        try:
            t0 = time.monotonic()
            with self.assertRaises(BadReplyError) as e:
                SearchGymClient(s.url, "", retries=0, max_reply_bytes=1 << 20).retrieve(["q"])
            self.assertEqual(e.exception.code, "client.reply_too_large")
            self.assertLess(time.monotonic() - t0, 5)
        finally:
            s.close()
        declared = RawServer(lambda conn, head: conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 99999999999\r\n\r\n"))
        try:
            with self.assertRaises(BadReplyError) as e:
                SearchGymClient(declared.url, "", retries=0).health()
            self.assertEqual(e.exception.code, "client.reply_too_large")
        finally:
            declared.close()

    def test_a_200_of_the_wrong_shape_is_a_typed_error(self):
        for body in ([], {}, None, "text", {"results": 3}, {"envId": 5, "observation": []}):
            s = RawServer(reply(200, body))
            try:
                c = SearchGymClient(s.url, "", retries=0)
                for call in (lambda: c.search("x"), lambda: c.create_env("q"), lambda: c.step("e", "a"), lambda: c.close_env("e"), lambda: c.list_qa(),
                             lambda: c.access("u"), lambda: c.retrieve(["q"]), lambda: c.access_many(["u"]), lambda: c.health()):
                    with self.assertRaises(BadReplyError, msg=f"{body!r}") as e:
                        call()
                    self.assertIsInstance(e.exception, SearchGymError)
                    self.assertEqual(e.exception.code, "client.bad_reply")
            finally:
                s.close()
        s = RawServer(reply(200, b"<html>not json</html>"))
        try:
            with self.assertRaises(BadReplyError):
                SearchGymClient(s.url, "", retries=0).health()
        finally:
            s.close()

    def test_a_bad_retry_after_falls_back_to_the_backoff(self):
        for value in ("-5", "nan", "inf", "soon", "Wed, 21 Oct 2015 07:28:00 GMT", "1e999"):
            calls = []

            def answer(conn, head, calls=calls, value=value):
                calls.append(1)
                if len(calls) == 1:
                    reply(503, {"error": {"code": "env.worker_down", "message": "x"}}, [("retry-after", value)])(conn, head)
                else:
                    reply(200, {"results": [{"title": "A", "url": "u"}]})(conn, head)

            s = RawServer(answer)
            try:
                t0 = time.monotonic()
                self.assertEqual(SearchGymClient(s.url, "", retries=1, backoff=0.01).search("x"), [{"title": "A", "url": "u"}], value)
                self.assertLess(time.monotonic() - t0, 2)
            finally:
                s.close()
        self.assertEqual(retry_wait("2", 0.1), 2.0)
        self.assertEqual(retry_wait("9999", 0.1), 30.0)
        self.assertEqual(retry_wait("-5", 0.1), 0.1)
        self.assertEqual(retry_wait("nan", 0.1), 0.1)


if __name__ == "__main__":
    unittest.main()
