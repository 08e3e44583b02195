#!/usr/bin/env python3
# tests/replicas/retrieve_latency.py: /retrieve latency as an engine sees it (python3 standard library): N single-query
# calls one after another (ASearcher's pattern, topk 5, return_scores false) and B-query batches (Search-R1's, topk 3,
# return_scores true); prints p50/p95/p99 ms and the mean words per hit as one JSON line.
# Usage: python3 tests/replicas/retrieve_latency.py URL QUESTIONS_FILE [N] [B]   (QUESTIONS_FILE: one question a line)
import json
import sys
import time
import urllib.request


def post(url, payload):
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=120) as r:
        return json.loads(r.read())


def pct(xs, q):
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 2)


def main():
    url, qfile = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    b = int(sys.argv[4]) if len(sys.argv) > 4 else 512
    qs = [l.strip() for l in open(qfile) if l.strip()]
    single, words = [], []
    for i in range(n):
        t = time.perf_counter()
        res = post(url + "/retrieve", {"queries": [qs[i % len(qs)]], "topk": 5, "return_scores": False})
        single.append((time.perf_counter() - t) * 1000)
        words.extend(len(h["contents"].split()) for h in res["result"][0])
    batches = []
    for j in range(5):
        t = time.perf_counter()
        post(url + "/retrieve", {"queries": [qs[(j * b + i) % len(qs)] for i in range(b)], "topk": 3, "return_scores": True})
        batches.append((time.perf_counter() - t) * 1000)
    print(json.dumps({"single": {"n": n, "p50": pct(single, 0.5), "p95": pct(single, 0.95), "p99": pct(single, 0.99)},
                      "batch": {"queries": b, "runs": 5, "p50": pct(batches, 0.5), "max": round(max(batches), 2)},
                      "words_per_hit": round(sum(words) / max(1, len(words)), 1)}))


if __name__ == "__main__":
    main()
