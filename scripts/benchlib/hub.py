"""`aletheia hub` under load: wrk on loopback with 16 connections, each on an MCP session of its
own, calling `tools/call search` with a sync token, against a store the bench built. The rate
limit is raised for the run (`ALETHEIA_HUB_RATE`): at the default 60 a minute it, not the hub,
would be measured.

    python3 scripts/benchlib/hub.py target/release/aletheia DATA_DIR [SECONDS]
"""
import json, os, re, shutil, subprocess, sys, tempfile, threading, urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server  # noqa: E402


def start(bin_, db):
    env = dict(os.environ, ALETHEIA_LOG="warn", ALETHEIA_HUB_RATE="1000000000", ALETHEIA_CWD="/home/dev/proj3")
    p = subprocess.Popen([bin_, "hub", "--port", "0", "--hub-db", db], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)", first)
    if not m:
        p.kill()
        raise RuntimeError(f"the hub did not start: {first!r}")
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    return p, int(m.group(1))


def session(port, token):
    def post(body, sid=None):
        h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
             "Authorization": f"Bearer {token}"}
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


def run(bin_, data, seconds=10):
    """Hub MCP search over `data`'s store: wrk's figures, or None and why not."""
    if not shutil.which("wrk"):
        return None, "wrk is not installed (apt-get install wrk)"
    db = os.path.join(data, "hub.db")
    made = subprocess.run([bin_, "--json", "mcp-link", "create", "--hub-db", db, "--scope", "sync", "--label", "bench"],
                          capture_output=True, text=True, check=True)
    token = json.loads(made.stdout)["token"]
    with tempfile.TemporaryDirectory() as work:
        p, port = start(bin_, db)
        try:
            sids = [session(port, token) for _ in range(server.CONNECTIONS)]
            calls = [json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                                 "params": {"name": "search", "arguments": dict(q, project=server.PROJECT)}})
                     for q in server.QUERIES]
            out = server.wrk(f"http://127.0.0.1:{port}/mcp", f"""
local bodies = {server.lua_list(calls)}
local sids = {server.lua_list(sids)}
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
wrk.headers["Authorization"] = "Bearer {token}"
request = function()
  i = i + 1
  local h = {{}}
  for k, v in pairs(wrk.headers) do h[k] = v end
  h["Mcp-Session-Id"] = sids[((first - 1) * 8 + i) % #sids + 1]
  return wrk.format(nil, nil, h, bodies[i % #bodies + 1])
end
""", seconds, work)
            out["audit_rows"] = int(subprocess.run(
                ["sqlite3", db, "SELECT count(*) FROM hub_audit"], capture_output=True, text=True).stdout.strip() or 0) \
                if shutil.which("sqlite3") else None
            out["seconds"] = seconds
            return out, None
        finally:
            p.terminate()
            p.wait(10)


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10), indent=2))
