"""convert_to_ws_url — src/openenv/core/utils.py:65-82 at 685de411 (verbatim)."""


def convert_to_ws_url(url: str) -> str:
    ws_url = url.rstrip("/")
    if ws_url.startswith("http://"):
        ws_url = "ws://" + ws_url[7:]
    elif ws_url.startswith("https://"):
        ws_url = "wss://" + ws_url[8:]
    elif not ws_url.startswith("ws://") and not ws_url.startswith("wss://"):
        ws_url = "ws://" + ws_url
    return ws_url
