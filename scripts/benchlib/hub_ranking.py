"""The hub's ranking on PostgreSQL against the same hub on SQLite, on the same memories.

The corpus is the buried-memories one (buried.py: 2,000 old memories, each the one answer to a
question made from its summary line, under 20,000 newer paragraphs that share the questions'
everyday words). It is imported into a store, the store is made a SQLite hub (a token with
`mcp-link create`), and the very same file is copied into a fresh PostgreSQL database with
`aletheia hub migrate`, so both hubs hold the same rows under the same ids. Each of 300
questions is then asked of both hubs through MCP `tools/call search` (top 10, one project), and
each ranking is scored against the known answer.

Figures: nDCG@10, hit@1, hit@10 and MRR@10 per engine; the ratio of PostgreSQL's nDCG@10 to
SQLite's (the goal: at least 0.95); how many questions each answers in its top 10 that the other
does not; and the mean overlap of the two top-10 lists. Nothing in the PostgreSQL engine was
tuned on this corpus.

    python3 scripts/benchlib/hub_ranking.py [BIN]
"""
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buried  # noqa: E402
import server  # noqa: E402

ROOT = buried.ROOT
HIT = re.compile(r"^#(\d+) ", re.M)


def start_hub(bin_, args, env):
    p = subprocess.Popen([bin_, "hub", "--port", "0", *args], env=env, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)", first)
    if not m:
        p.kill()
        raise RuntimeError(f"the hub did not start: {first!r}")
    return p, int(m.group(1))


def rankings(port, token, queries):
    """The ids each query's MCP search answers, in order."""
    auth = {"Authorization": f"Bearer {token}"}
    sid = server.mcp_session(port, auth)
    out = []
    for q in queries:
        body = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "search", "arguments": {"query": q, "project": buried.PROJECT, "limit": buried.TOP}}}
        req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(body).encode(), headers={
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-11-25", **auth})
        with urllib.request.urlopen(req, timeout=30) as r:
            answer = json.loads(r.read())
        text = answer["result"]["content"][0]["text"]
        out.append([int(i) for i in HIT.findall(text)][:buried.TOP])
    return out


def run(bin_, n_old=2000, n_new=20000, n_queries=300, seed=11):
    rng = random.Random(seed)
    items, paras, _crates = buried.collect()
    old, newer, _families = buried.choose(items, paras, n_old, n_new, rng)
    old_times = buried.spread(n_old, buried.NEWEST - 395 * buried.DAY, buried.NEWEST - 365 * buried.DAY, rng)
    new_times = buried.spread(n_new, buried.NEWEST - 182 * buried.DAY, buried.NEWEST + 1, rng)
    old_records = [buried.memory(f"old-{i:05d}", body, at) for i, ((_, body), at) in enumerate(zip(old, old_times))]
    new_records = [buried.memory(f"new-{i:05d}", body, at) for i, (body, at) in enumerate(zip(newer, new_times))]
    asked = sorted(rng.sample(range(n_old), n_queries))
    queries = [buried.question(old[i][0]) for i in asked]
    wanted_uids = [old_records[i]["uid"] for i in asked]

    # The cluster is the temporary folder itself, which scripts/postgres hands to the `postgres`
    # user when run as root: a folder inside it would sit behind one only root may enter.
    with tempfile.TemporaryDirectory(prefix="aletheia-hubrank-") as work, \
            tempfile.TemporaryDirectory(prefix="aletheia-pg-", dir="/tmp") as pg:
        env, _ = buried.build_store(bin_, work, "store", old_records + new_records)
        hub_db = os.path.join(work, "store", "hub.db")
        made = subprocess.run([bin_, "--json", "mcp-link", "create", "--hub-db", hub_db, "--scope", "read"],
                              env=env, capture_output=True, text=True, check=True)
        token = json.loads(made.stdout)["token"]
        listed = subprocess.run(["sqlite3", hub_db, "SELECT uid, id FROM memories"], capture_output=True,
                                text=True, check=True).stdout
        ids = dict(line.split("|") for line in listed.split())
        wanted = [int(ids[u]) for u in wanted_uids]

        url_server = subprocess.run([os.path.join(ROOT, "scripts/postgres"), "start", pg],
                                    capture_output=True, text=True, check=True).stdout.strip()
        try:
            subprocess.run(["psql", url_server, "-qc", "CREATE DATABASE hubrank"], check=True)
            url = url_server.rsplit("/", 1)[0] + "/hubrank"
            t = time.perf_counter()
            subprocess.run([bin_, "hub", "migrate", "--from", hub_db, "--to", url], env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t_migrate = time.perf_counter() - t
            hub_env = dict(env, ALETHEIA_HUB_RATE="1000000000", ALETHEIA_LOG="warn")
            out = {}
            for name, args in [("sqlite", ["--hub-db", hub_db]), ("postgres", ["--database", url])]:
                p, port = start_hub(bin_, args, hub_env)
                try:
                    t = time.perf_counter()
                    r = rankings(port, token, queries)
                    out[name] = {"rankings": r, "seconds": time.perf_counter() - t}
                finally:
                    p.terminate()
                    p.wait(10)
        finally:
            subprocess.run([os.path.join(ROOT, "scripts/postgres"), "stop", pg], check=False)

    a, b = out["sqlite"]["rankings"], out["postgres"]["rankings"]
    sa, sb = buried.scores(a, wanted), buried.scores(b, wanted)
    fa, fb = buried.found(a, wanted), buried.found(b, wanted)
    overlap = sum(len(set(x) & set(y)) / max(1, len(set(x) | set(y))) for x, y in zip(a, b)) / len(a)
    return {
        "memories": n_old + n_new, "queries": n_queries, "seed": seed,
        "sqlite": sa, "postgres": sb,
        "ratio_ndcg": buried.ratio(sb["ndcg@10"], sa["ndcg@10"]),
        "found_by_postgres_only": sum(y and not x for x, y in zip(fa, fb)),
        "found_by_sqlite_only": sum(x and not y for x, y in zip(fa, fb)),
        "mean_jaccard_top10": overlap,
        "seconds": {"migrate": t_migrate, "sqlite_queries": out["sqlite"]["seconds"],
                    "postgres_queries": out["postgres"]["seconds"]},
    }


if __name__ == "__main__":
    bin_ = sys.argv[1] if len(sys.argv) > 1 else buried.DEFAULT_BIN
    if not shutil.which("sqlite3"):
        sys.exit("sqlite3 is needed (apt-get install sqlite3)")
    print(json.dumps(run(bin_), indent=2))
