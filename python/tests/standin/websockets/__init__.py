"""tests/standin/websockets: the one call OpenEnv's EnvClient makes of the websockets package (python-websockets,
src/websockets/asyncio/client.py: connect(uri, *, open_timeout, max_size) awaited to a ClientConnection with async
send / recv / close), over searchgym._ws (the package's own RFC 6455 client) on the default executor."""
STANDIN = True
