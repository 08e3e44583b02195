#!/usr/bin/env python3
# tests/replicas/engines.py: client replicas of three outside RL engines, written from their code (Python 3 standard
# library only; `requests`/`aiohttp` calls become urllib with the same payloads, timeouts, retries and parsing).
# Run by tests/outside-engines.test.ts against a real `searchgym gym serve` over loopback. Each function cites the
# engine file:line it copies, at the versions the project reads:
#
# Search-R1 a14dc3a
#   search_r1/llm_agent/generation.py:446      results = self._batch_search(queries)['result']   (KeyError on a 401 body)
#   search_r1/llm_agent/generation.py:450-458  payload {"queries", "topk", "return_scores": True}; requests.post(url).json()
#   search_r1/llm_agent/generation.py:460-467  "Doc {i}(Title: {title}) {text}\n" from document.contents' first line
# verl b178a3c
#   verl/tools/utils/search_r1_like_utils.py:26-28   DEFAULT_TIMEOUT 30, MAX_RETRIES 10, INITIAL_RETRY_DELAY 1
#   verl/tools/utils/search_r1_like_utils.py:59-122  retry on 500/502/503/504 and connection errors; other 4xx/5xx stop
#   verl/tools/utils/search_r1_like_utils.py:130-138 "Doc {i} (Title: {title})\n{text}\n\n", stripped
#   verl/tools/utils/search_r1_like_utils.py:203-225 {"result": "Search error: ..."} on an API error, else "\n---\n" join
#   verl/experimental/agent_loop/tool_agent_loop.py:445-452 tool output cut to max_tool_response_length (middle)
#   verl/trainer/config/rollout/rollout.yaml:175,178 max_tool_response_length 256, tool_response_truncate_side middle
# AReaL/ASearcher 813e804
#   AReaL/ASearcher/utils/search_utils.py:36-48   server list: every $RAG_SERVER_ADDR_DIR/Host*_IP*.txt, readlines()
#   AReaL/ASearcher/utils/search_utils.py:50-79   /retrieve: 10 tries, 10 s apart, raise_for_status, result[i] contents/url
#   AReaL/ASearcher/utils/search_utils.py:81-110  /access {"urls"}: page = result["contents"] or "" for null
#   AReaL/ASearcher/utils/search_tool.py:61-82    SearchToolBox.step's access branch: response["result"][0] on the list
#                                                 access_async returns -> TypeError (stock); PATCHED reads response[0]["page"]
# The retry sleeps are the engines' own, scaled by $REPLICA_SLEEP_SCALE (tests set 0.001 to keep seconds).
import glob
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request

SLEEP_SCALE = float(os.environ.get("REPLICA_SLEEP_SCALE", "1"))


class HttpStatusError(Exception):
    def __init__(self, status, body):
        super().__init__(f"HTTP {status}")
        self.status = status
        self.body = body


def post_json(url, payload, timeout, headers=None):
    """requests.post(url, json=payload, timeout=...) -> (status, parsed JSON or None). Never raises on a status."""
    data = json.dumps(payload).encode()
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    req = urllib.request.Request(url, data=data, headers=h, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null"), dict(r.headers)
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        return e.code, body, dict(e.headers)


# ---- Search-R1 ----------------------------------------------------------------------------------------------------
def search_r1_passages2string(retrieval_result):
    format_reference = ""
    for idx, doc_item in enumerate(retrieval_result):
        content = doc_item["document"]["contents"]
        title = content.split("\n")[0]
        text = "\n".join(content.split("\n")[1:])
        format_reference += f"Doc {idx+1}(Title: {title}) {text}\n"
    return format_reference


def search_r1_batch_search(search_url, queries, topk):
    """generation.py:440-448: one POST per turn, no timeout, no retry; ['result'] raises KeyError on an error body."""
    payload = {"queries": queries, "topk": topk, "return_scores": True}
    _, body, _ = post_json(search_url, payload, timeout=None)
    results = body["result"]
    return [search_r1_passages2string(r) for r in results]


# ---- verl ---------------------------------------------------------------------------------------------------------
VERL_MAX_RETRIES = 10
VERL_INITIAL_RETRY_DELAY = 1


def verl_passages2string(retrieval_result):
    format_reference = ""
    for idx, doc_item in enumerate(retrieval_result):
        content = doc_item["document"]["contents"]
        title = content.split("\n")[0]
        text = "\n".join(content.split("\n")[1:])
        format_reference += f"Doc {idx + 1} (Title: {title})\n{text}\n\n"
    return format_reference.strip()


def verl_call_search_api(url, query_list, topk=3, return_scores=True, timeout=30):
    """search_r1_like_utils.py:34-127 -> (json or None, error or None, attempts)."""
    payload = {"queries": query_list, "topk": topk, "return_scores": return_scores}
    last_error = None
    for attempt in range(VERL_MAX_RETRIES):
        try:
            status, body, _ = post_json(url, payload, timeout, {"Accept": "application/json"})
        except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
            last_error = f"Connection Error: {e}"
            if attempt < VERL_MAX_RETRIES - 1:
                time.sleep(VERL_INITIAL_RETRY_DELAY * (attempt + 1) * SLEEP_SCALE)
            continue
        if status in (500, 502, 503, 504):
            last_error = f"API Request Error: Server Error ({status}) on attempt {attempt + 1}/{VERL_MAX_RETRIES}"
            if attempt < VERL_MAX_RETRIES - 1:
                time.sleep(VERL_INITIAL_RETRY_DELAY * (attempt + 1) * SLEEP_SCALE)
            continue
        if status >= 400:  # response.raise_for_status() -> RequestException -> break
            return None, f"API Request Error: {status} Client Error", attempt + 1
        return body, None, attempt + 1
    return None, last_error, VERL_MAX_RETRIES


def verl_search_tool_text(url, query_list, topk=3, timeout=30):
    """perform_single_search_batch (search_r1_like_utils.py:141-240): the tool's result_text JSON string."""
    api_response, error_msg, attempts = verl_call_search_api(url, query_list, topk, True, timeout)
    if error_msg:
        return json.dumps({"result": f"Search error: {error_msg}"}, ensure_ascii=False), attempts
    raw_results = api_response.get("result", [])
    if not raw_results:
        return json.dumps({"result": "No search results found."}, ensure_ascii=False), attempts
    final_result = "\n---\n".join(verl_passages2string(r) for r in raw_results)
    return json.dumps({"result": final_result}, ensure_ascii=False), attempts


def verl_truncate(text, max_len=256, side="middle"):
    """tool_agent_loop.py:445-452."""
    if text and len(text) > max_len:
        if side == "left":
            return text[:max_len] + "...(truncated)"
        if side == "right":
            return "(truncated)..." + text[-max_len:]
        length = max_len // 2
        return text[:length] + "...(truncated)..." + text[-length:]
    return text


# ---- AReaL / ASearcher --------------------------------------------------------------------------------------------
def asearcher_server_list(addr_dir, skip_dead=False):
    """search_utils.py:36-48 (skip_dead: also drop files whose searchgym pid sidecar names a dead process)."""
    server_list = []
    for filename in glob.glob(addr_dir + "/Host*_IP*.txt"):
        if skip_dead:
            side = os.path.join(os.path.dirname(filename), "." + os.path.basename(filename) + ".pid")
            try:
                pid = int(open(side).read().strip())
                os.kill(pid, 0)
            except ProcessLookupError:
                continue
            except (OSError, ValueError):
                pass
        try:
            server_list.extend(open(filename).readlines())
        except OSError:
            continue
    return server_list


class AsearcherClient:
    def __init__(self, addr_dir, skip_dead=False):
        self.addr_dir = addr_dir
        self.skip_dead = skip_dead
        self.server_list = asearcher_server_list(addr_dir, skip_dead)
        self.server_addr = random.choice(self.server_list)
        self.tries = 0

    def _switch(self):
        self.server_list = asearcher_server_list(self.addr_dir, self.skip_dead)
        self.server_addr = random.choice(self.server_list)

    def _post(self, route, payload):
        last = None
        for _ in range(10):
            self.tries += 1
            try:
                status, body, _ = post_json(f"http://{self.server_addr}/{route}", payload, 120)
                if status >= 400:
                    raise HttpStatusError(status, body)  # response.raise_for_status()
                return body
            except Exception as e:  # noqa: BLE001 - the engine catches everything and retries
                last = e
                self._switch()
                time.sleep(10 * SLEEP_SCALE)
        raise RuntimeError(f"Fail to post {route} request to RAG server") from last

    def query(self, req_meta):
        res = self._post("retrieve", req_meta)
        return [dict(documents=[r["contents"] for r in result], urls=[r["url"] for r in result], server_type="async-search-browser") for result in res["result"]]

    def access(self, urls):
        res = self._post("access", {"urls": urls})
        return [dict(page=result["contents"] if result is not None else "", type="access", server_type="async-search-browser") for result in res["result"]]


def asearcher_toolbox_access(client, url, patched):
    """search_tool.py:61-82 with search_client_type "async-search-access"; stock raises TypeError."""
    response = client.access([url])
    if not patched:
        return None if response["result"][0] is None else response["result"][0]["contents"]
    return response[0]["page"] or None


# ---- CLI: one JSON object per call on stdout --------------------------------------------------------------------
def main(argv):
    cmd = argv[0]
    args = json.loads(argv[1])
    try:
        if cmd == "search-r1":
            out = {"ok": True, "passages": search_r1_batch_search(args["url"], args["queries"], args.get("topk", 3))}
        elif cmd == "verl":
            text, attempts = verl_search_tool_text(args["url"], args["queries"], args.get("topk", 3))
            out = {"ok": not json.loads(text)["result"].startswith("Search error"), "text": text, "attempts": attempts,
                   "shown": verl_truncate(text, args.get("max_len", 256))}
        elif cmd == "asearcher":
            c = AsearcherClient(args["addr_dir"], args.get("skip_dead", False))
            out = {"ok": True, "server": c.server_addr}
            if "query" in args:
                out["search"] = c.query({"queries": [args["query"]], "topk": args.get("topk", 5), "return_scores": False})
            if "access" in args:
                out["page"] = asearcher_toolbox_access(c, args["access"], args.get("patched", True))
            out["tries"] = c.tries
        else:
            raise SystemExit(f"unknown replica {cmd}")
    except Exception as e:  # noqa: BLE001 - reported to the test as the engine would crash
        out = {"ok": False, "error": type(e).__name__, "message": str(e)}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
