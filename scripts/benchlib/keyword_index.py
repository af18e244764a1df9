"""The keyword index the server keeps in memory, measured on two corpora: the bench corpus (the
store `scripts/bench` builds) and a Zipf corpus made here (words drawn with probability 1/rank from
a 50,000-word vocabulary, so a handful of words sit in most memories and most words in very few).

For each store, `aletheia server --no-worker` is started and /v1/health polled until the index is
ready (how long that took and the resident memory then are reported). Then, one request at a time
over loopback, the median of 15 (after 3 to warm up) for typical queries and for the worst case
(the two commonest words), in one project of the 20 and across all of them; then wrk's REST search
at 16 connections with the index and again with ALETHEIA_KEYWORD_INDEX=off, for the ratio.

    python3 scripts/benchlib/keyword_index.py target/release/aletheia DATA_DIR bench|zipf [SECONDS]
"""
import json, os, random, statistics, subprocess, sys, tempfile, time, urllib.parse, urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchlib import server  # noqa: E402

# Per corpus: typical queries (a rare identifier with everyday words, a common word, a question)
# and the worst case, its two commonest words (each in about three memories of four on the
# bench corpus: "item" and "see" end every summary and prompt there).
QUERIES = {
    "bench": {"typical": ["checkout retry backoff", "deploy", "why does the staging deploy need the vpn after the migration"],
              "worst": "item see"},
    "zipf": {"typical": ["w17 w950 w4021", "w230 w12", "w3 w88 w1500 w27000"],
             "worst": "w1 w2"},
}
PROJECT = "proj3"


def zipf_corpus(n, seed=11):
    """`n` memories of 10 to 60 words (titles of 3 to 8) drawn by Zipf's law, in 20 projects."""
    rnd = random.Random(seed)
    vocab = 50_000
    weights = [1.0 / r for r in range(1, vocab + 1)]
    cum = list(__import__("itertools").accumulate(weights))
    t0 = 1_760_000_000_000

    def words(k):
        return " ".join(f"w{r}" for r in (1 + i for i in rnd.choices(range(vocab), cum_weights=cum, k=k)))
    for i in range(n):
        yield {"project": f"proj{rnd.randrange(20)}", "kind": "note", "type": "note",
               "title": words(rnd.randrange(3, 9)), "text": words(rnd.randrange(10, 61)),
               "tool": "claude-code", "session_id": f"s{i // 50}", "files": [], "created_at": t0 + i * 60_000}


def make_zipf_store(bin_, n, work):
    data = os.path.join(work, f"zipf-{n}")
    os.makedirs(data)
    src = os.path.join(work, f"zipf-{n}.jsonl")
    with open(src, "w") as f:
        for m in zipf_corpus(n):
            f.write(json.dumps(m) + "\n")
    subprocess.run([bin_, "import", src], env=dict(os.environ, ALETHEIA_DATA_DIR=data), check=True,
                   stdout=subprocess.DEVNULL)
    os.remove(src)
    return data


def get(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def timed(base, params, runs=15):
    url = base + "/v1/memories?" + urllib.parse.urlencode(params)
    for _ in range(3):
        get(url)
    ms = []
    for _ in range(runs):
        t = time.perf_counter()
        get(url)
        ms.append((time.perf_counter() - t) * 1000)
    return statistics.median(ms)


def rest(base, queries, seconds, work):
    q = [urllib.parse.urlencode({"query": x, "project": PROJECT}) for x in queries]
    return server.wrk(base + "/v1/memories", f"""
local q = {server.lua_list(q)}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", "/v1/memories?" .. q[i % #q + 1])
end
""", seconds, work)


def measure(bin_, data, corpus, seconds=10, index=True):
    """One server on `data`: readiness, latencies and wrk, with the index or without."""
    os.environ["ALETHEIA_KEYWORD_INDEX"] = "on" if index else "off"
    t0 = time.perf_counter()
    p, port, _ = server.start(bin_, data)
    base = f"http://127.0.0.1:{port}"
    out = {}
    try:
        while True:
            health = json.loads(get(base + "/v1/health"))
            if health.get("keyword_index") != "building":
                break
            time.sleep(0.1)
        out["index"] = health.get("keyword_index")
        out["ready_s"] = time.perf_counter() - t0
        out["rss_mb"] = server.rss_kib(p.pid) / 1024
        q = QUERIES[corpus]
        if index:
            out["typical_project_ms"] = statistics.median(timed(base, {"query": x, "project": PROJECT}) for x in q["typical"])
            out["typical_all_ms"] = statistics.median(timed(base, {"query": x}) for x in q["typical"])
            out["worst_project_ms"] = timed(base, {"query": q["worst"], "project": PROJECT})
            out["worst_all_ms"] = timed(base, {"query": q["worst"]})
        with tempfile.TemporaryDirectory() as work:
            out["rest"] = rest(base, q["typical"] + [q["worst"]], seconds, work)
    finally:
        p.kill()
        p.wait()
        os.environ.pop("ALETHEIA_KEYWORD_INDEX", None)
    return out


def run(bin_, data, corpus, seconds=10):
    return {"on": measure(bin_, data, corpus, seconds, True), "off": measure(bin_, data, corpus, seconds, False)}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 10), indent=2))
