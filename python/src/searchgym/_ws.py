"""searchgym._ws: a minimal WebSocket client (RFC 6455) on the standard library — what searchgym.openenv speaks to a gym
server's OpenEnv face (/ws) when the `websockets` package (OpenEnv's transport) is not there.

Text and binary messages, fragmented or not; ping answered with pong; the closing handshake; client frames masked
(RFC 6455 5.3), server frames refused if masked; a size cap on incoming messages; ws:// and wss://. A handshake the
server refuses raises HandshakeError with the HTTP status and the body (the gym's one-line {"detail": ...}). No
extensions (no permessage-deflate) and no subprotocols. Blocking; one reader and any number of writers (sends are
serialised by a lock).
"""
from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
import threading
import urllib.parse
from typing import Dict, Optional, Tuple

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class WebSocketError(Exception):
    """A protocol or transport failure; the connection is unusable afterwards."""


class HandshakeError(WebSocketError):
    """The server answered the opening handshake with an HTTP status other than 101."""

    def __init__(self, status: int, body: str):
        super().__init__(f"WebSocket handshake refused: HTTP {status}: {body[:300]}")
        self.status = status
        self.body = body


class ConnectionClosed(WebSocketError):
    """The peer closed the connection (code and reason as it sent them; 1006 when it just went away)."""

    def __init__(self, code: int, reason: str = ""):
        super().__init__(f"WebSocket closed ({code}{': ' + reason if reason else ''})")
        self.code = code
        self.reason = reason


def _split_url(url: str) -> Tuple[bool, str, int, str]:
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("ws", "wss"):
        raise WebSocketError(f"not a ws:// or wss:// URL: {url!r}")
    secure = u.scheme == "wss"
    host = u.hostname or ""
    port = u.port or (443 if secure else 80)
    path = (u.path or "/") + (f"?{u.query}" if u.query else "")
    return secure, host, port, path


class WebSocket:
    """One client connection. connect() opens it; send_text / recv / close; usable as a context manager."""

    def __init__(self, sock: socket.socket, max_size: int):
        self._sock = sock
        self._max_size = max_size
        self._send_lock = threading.Lock()
        self._buf = b""
        self.closed = False
        self.close_code: Optional[int] = None

    @classmethod
    def connect(cls, url: str, *, timeout: float = 10.0, max_size: int = 100 << 20, headers: Optional[Dict[str, str]] = None) -> "WebSocket":
        secure, host, port, path = _split_url(url)
        sock = socket.create_connection((host, port), timeout=timeout)
        try:
            if secure:
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
            key = base64.b64encode(os.urandom(16)).decode()
            host_header = host if ":" not in host else f"[{host}]"
            if port not in (80, 443):
                host_header += f":{port}"
            lines = [f"GET {path} HTTP/1.1", f"Host: {host_header}", "Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
            for k, v in (headers or {}).items():
                lines.append(f"{k}: {v}")
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            ws = cls(sock, max_size)
            status, head = ws._read_http_head()
            if status != 101:
                n = int(head.get("content-length", "0") or 0)
                body = ws._read_exact(min(n, 1 << 16)).decode("utf-8", "replace") if n else ""
                raise HandshakeError(status, body)
            want = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
            if head.get("upgrade", "").lower() != "websocket" or head.get("sec-websocket-accept") != want:
                raise WebSocketError("the server's handshake answer is not a WebSocket upgrade for this key")
            if head.get("sec-websocket-extensions"):
                raise WebSocketError("the server enabled an extension this client did not offer")
            return ws
        except BaseException:
            sock.close()
            raise

    def settimeout(self, seconds: Optional[float]) -> None:
        self._sock.settimeout(seconds)

    # -- messages ------------------------------------------------------------------------------------------------
    def send_text(self, text: str) -> None:
        self._send_frame(OP_TEXT, text.encode("utf-8"))

    def send_binary(self, data: bytes) -> None:
        self._send_frame(OP_BINARY, data)

    def recv(self) -> str:
        """The next text message (a binary one decoded as UTF-8). Raises ConnectionClosed once the peer closes."""
        parts = []
        size = 0
        opcode = None
        while True:
            fin, op, payload = self._read_frame()
            if op == OP_PING:
                self._send_frame(OP_PONG, payload)
                continue
            if op == OP_PONG:
                continue
            if op == OP_CLOSE:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                reason = payload[2:].decode("utf-8", "replace")
                if not self.closed:
                    try:
                        self._send_frame(OP_CLOSE, payload[:2])
                    except OSError:
                        pass
                self._shutdown(code)
                raise ConnectionClosed(code, reason)
            if op == OP_CONT:
                if opcode is None:
                    raise self._fail(1002, "a continuation frame with no message to continue")
            elif op in (OP_TEXT, OP_BINARY):
                if opcode is not None:
                    raise self._fail(1002, "a new message inside a fragmented one")
                opcode = op
            else:
                raise self._fail(1002, f"unknown opcode {op}")
            size += len(payload)
            if size > self._max_size:
                raise self._fail(1009, f"message over {self._max_size} bytes")
            parts.append(payload)
            if fin:
                data = b"".join(parts)
                try:
                    return data.decode("utf-8")
                except UnicodeDecodeError:
                    raise self._fail(1007, "a text message that is not UTF-8") from None

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Send a close frame and wait (briefly) for the peer's; idempotent."""
        if self.closed:
            return
        try:
            self._send_frame(OP_CLOSE, struct.pack("!H", code) + reason.encode("utf-8")[:123])
            self._sock.settimeout(2.0)
            while True:  # read until the peer's close (or EOF)
                _, op, _ = self._read_frame()
                if op == OP_CLOSE:
                    break
        except (OSError, WebSocketError):
            pass
        self._shutdown(code)

    def __enter__(self) -> "WebSocket":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- frames --------------------------------------------------------------------------------------------------
    def _send_frame(self, opcode: int, payload: bytes) -> None:
        if self.closed:
            raise ConnectionClosed(self.close_code or 1006)
        n = len(payload)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = _mask(payload, mask)
        with self._send_lock:
            self._sock.sendall(head + mask + masked)

    def _read_frame(self) -> Tuple[bool, int, bytes]:
        b0, b1 = self._read_exact(2)
        fin, rsv, opcode = bool(b0 & 0x80), b0 & 0x70, b0 & 0x0F
        if rsv:
            raise self._fail(1002, "reserved bits set (no extension was negotiated)")
        if b1 & 0x80:
            raise self._fail(1002, "a masked frame from the server")
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._read_exact(2))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._read_exact(8))[0]
        if opcode >= 0x8 and (n > 125 or not fin):
            raise self._fail(1002, "a control frame that is fragmented or longer than 125 bytes")
        if n > self._max_size:
            raise self._fail(1009, f"a frame over {self._max_size} bytes")
        return fin, opcode, self._read_exact(n)

    def _read_exact(self, n: int) -> bytes:
        while len(self._buf) < n:
            try:
                chunk = self._sock.recv(max(65536, n - len(self._buf)))
            except socket.timeout:
                raise
            except OSError as e:
                self._shutdown(1006)
                raise ConnectionClosed(1006, str(e)) from None
            if not chunk:
                self._shutdown(1006)
                raise ConnectionClosed(1006, "the connection was closed without a close frame")
            self._buf += chunk
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def _read_http_head(self) -> Tuple[int, Dict[str, str]]:
        while b"\r\n\r\n" not in self._buf:
            chunk = self._sock.recv(4096)
            if not chunk:
                raise WebSocketError("the server closed the connection during the handshake")
            self._buf += chunk
            if len(self._buf) > 65536:
                raise WebSocketError("the handshake answer is too long")
        head, self._buf = self._buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise WebSocketError(f"not an HTTP answer: {lines[0][:100]!r}")
        fields: Dict[str, str] = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                fields[k.strip().lower()] = v.strip()
        return int(parts[1]), fields

    def _fail(self, code: int, why: str) -> WebSocketError:
        try:
            self._send_frame(OP_CLOSE, struct.pack("!H", code))
        except (OSError, WebSocketError):
            pass
        self._shutdown(code)
        return WebSocketError(f"WebSocket protocol error ({code}): {why}")

    def _shutdown(self, code: int) -> None:
        if not self.closed:
            self.closed = True
            self.close_code = code
            try:
                self._sock.close()
            except OSError:
                pass


def _mask(data: bytes, key: bytes) -> bytes:
    if not data:
        return b""
    # XOR with the 4-byte key repeated: one big-integer XOR instead of a Python loop per byte.
    n = len(data)
    k = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "little") ^ int.from_bytes(k, "little")).to_bytes(n, "little")
