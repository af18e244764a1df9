"""`aletheia server` under load: wrk on loopback with 16 connections against a store the bench
built, for REST search, MCP `tools/call search` over Streamable HTTP, and `POST /v1/events`
while hooks keep writing the same file (then every event is counted: nothing lost, nothing
doubled). The server's resident memory is read from /proc at rest and after the load.

    python3 scripts/benchlib/server.py target/release/aletheia DATA_DIR [SECONDS]

wrk comes from Debian (`apt-get install wrk`); without it the rows say so.
"""
import json, os, re, shutil, sqlite3, subprocess, sys, tempfile, threading, time, urllib.parse, urllib.request

CONNECTIONS = 16
# The searches the command-line rows time (scripts/bench), in one project of the store's 20:
# the standard query, one common word, a nine-word question and a type filter.
QUERIES = [{"query": "checkout retry backoff"}, {"query": "deploy"},
           {"query": "why does the staging deploy need the vpn after the migration"},
           {"query": "cache", "type": "decision"}]
PROJECT = "proj3"


def start(bin_, data):
    env = dict(os.environ, ALETHEIA_DATA_DIR=data, ALETHEIA_CWD="/home/dev/proj3", ALETHEIA_LOG="warn")
    p = subprocess.Popen([bin_, "server", "--port", "0", "--no-worker"], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)", first)
    if not m:
        p.kill()
        raise RuntimeError(f"the server did not start: {first!r}")
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    return p, int(m.group(1)), env


def rss_kib(pid, field="VmRSS"):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def wrk(url, script, seconds, work):
    path = os.path.join(work, "wrk.lua")
    with open(path, "w") as f:
        f.write(script)
    out = subprocess.run(["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "--latency", "-s", path, url],
                         capture_output=True, text=True, check=True).stdout
    unit = {"us": 0.001, "ms": 1.0, "s": 1000.0}
    med = re.search(r"^\s+50%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    p99 = re.search(r"^\s+99%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {
        "median_ms": float(med.group(1)) * unit[med.group(2)],
        "p99_ms": float(p99.group(1)) * unit[p99.group(2)],
        "rps": float(rps.group(1)),
        "requests": int(total.group(1)),
        "non_2xx": int(bad.group(1)) if bad else 0,
        "socket_errors": errors.group(1) if errors else "",
    }


def lua_list(items):
    return "{" + ",".join(json.dumps(i) for i in items) + "}"


def mcp_session(port, headers=None):
    """Initialize an MCP session over HTTP, sending `headers` too; returns its id."""
    def post(body, sid=None):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "Host": f"127.0.0.1:{port}", **(headers or {})}
        if sid:
            h["Mcp-Session-Id"] = sid
            h["MCP-Protocol-Version"] = "2025-11-25"
        req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(body).encode(), headers=h)
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()
            return r.headers.get("Mcp-Session-Id")
    sid = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    return sid


def mcp_search(port, sids, headers, seconds, work):
    """wrk's figures for `tools/call search` over `sids`, one session per connection as 16
    clients would have (a session's requests are answered in order, so 16 connections on one
    session would measure a queue), each request with `headers` too."""
    calls = [json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                         "params": {"name": "search", "arguments": dict(q, project=PROJECT)}}) for q in QUERIES]
    extra = "".join(f'wrk.headers["{k}"] = {json.dumps(v)}\n' for k, v in headers.items())
    return wrk(f"http://127.0.0.1:{port}/mcp", f"""
local bodies = {lua_list(calls)}
local sids = {lua_list(sids)}
local i = 0
local n = 0
setup = function(thread)
  n = n + 1
  thread:set("first", n)
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
{extra}request = function()
  i = i + 1
  local h = {{}}
  for k, v in pairs(wrk.headers) do h[k] = v end
  h["Mcp-Session-Id"] = sids[((first - 1) * 8 + i) % #sids + 1]
  return wrk.format(nil, nil, h, bodies[i % #bodies + 1])
end
""", seconds, work)


def count(data):
    c = sqlite3.connect(os.path.join(data, "hub.db"))
    try:
        return c.execute("SELECT count(*) FROM memories").fetchone()[0]
    finally:
        c.close()


def account(data, mark, hooks):
    """What the store holds of one run: stored texts, gaps in each sequence, and doubles."""
    c = sqlite3.connect(os.path.join(data, "hub.db"))
    try:
        texts = [t for (t,) in c.execute("SELECT text FROM memories WHERE text LIKE ?", (f"%{mark}%",))]
    finally:
        c.close()
    events, hook_ids = {}, set()
    for t in texts:
        w = t.split()
        if w[1] == "event":
            events.setdefault(w[2], set()).add(int(w[3]))
        else:
            hook_ids.add(int(w[2]))
    return {"stored": len(texts), "events_stored": sum(len(ns) for ns in events.values()),
            "hooks": hooks, "hooks_stored": len(hook_ids), "doubled": len(texts) - len(set(texts))}


def run(bin_, data, seconds=10):
    if not shutil.which("wrk"):
        return None, "wrk is not installed (apt-get install wrk)"
    out = {"seconds": seconds}
    with tempfile.TemporaryDirectory() as work:
        p, port, env = start(bin_, data)
        try:
            base = f"http://127.0.0.1:{port}"
            urllib.request.urlopen(base + "/v1/health", timeout=10).read()
            time.sleep(0.5)
            out["rss_rest_kib"] = rss_kib(p.pid)
            out["search"] = wrk(base + "/v1/memories", f"""
local q = {lua_list([urllib.parse.urlencode(dict(q, project=PROJECT)) for q in QUERIES])}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", "/v1/memories?" .. q[i % #q + 1])
end
""", seconds, work)
            out["mcp"] = mcp_search(port, [mcp_session(port) for _ in range(CONNECTIONS)], {}, seconds, work)
            # Events while hooks write the same store. Every text carries this run's mark and a
            # number, so the store itself says afterwards what it holds of this run and whether
            # anything was stored twice.
            mark = f"run{int(time.time() * 1000)}"
            stop = threading.Event()
            hooks = [0]

            def hook_loop():
                while not stop.is_set():
                    hooks[0] += 1
                    payload = json.dumps({"session_id": "bench-hook", "cwd": "/home/dev/proj3",
                                          "hook_event_name": "UserPromptSubmit",
                                          "prompt": f"{mark} hook {hooks[0]} beside the server load"}).encode()
                    subprocess.run([bin_, "hook", "claude-code", "UserPromptSubmit"], input=payload, env=env,
                                   capture_output=True)
            t = threading.Thread(target=hook_loop)
            t.start()
            out["events"] = wrk(base + "/v1/events", """
local n = 0
local id = 0
setup = function(thread)
  id = id + 1
  thread:set("tid", id)
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  n = n + 1
  local body = '{"tool":"claude-code","event":"UserPromptSubmit","payload":{"session_id":"bench-events","cwd":"/home/dev/proj3","prompt":"MARK event ' .. tid .. ' ' .. n .. ' sent over http"}}'
  return wrk.format(nil, nil, nil, body)
end
""".replace("MARK", mark), seconds, work)
            stop.set()
            t.join()
            time.sleep(0.5)
            # A hook that met a busy store spooled its event; the next command drains it.
            subprocess.run([bin_, "drain"], env=env, capture_output=True)
            e = out["events"]
            e.update(account(data, mark, hooks[0]))
            # Every event the server acknowledged must be stored, and every hook's prompt. (The
            # store may hold a few more events than wrk counted: those in flight when it
            # stopped. Their numbers leave gaps too, so gaps prove nothing.)
            e["lost"] = max(0, e["requests"] - e["non_2xx"] - e["events_stored"]) + (e["hooks"] - e["hooks_stored"])
            out["rss_load_kib"] = rss_kib(p.pid)
            out["rss_peak_kib"] = rss_kib(p.pid, "VmHWM")
        finally:
            p.terminate()
            p.wait(timeout=30)
    return out, None


if __name__ == "__main__":
    res, why = run(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10)
    print(json.dumps(res, indent=2) if res else why)
