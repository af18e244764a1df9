"""`aletheia hub` under load: wrk on loopback with 16 connections, each on an MCP session of its
own, calling `tools/call search` with a sync token, against a store the bench built. The rate
limit is raised for the run (`ALETHEIA_HUB_RATE`): at the default 60 a minute it, not the hub,
would be measured.

    python3 scripts/benchlib/hub.py target/release/aletheia DATA_DIR [SECONDS]
"""
import json, os, re, shutil, sqlite3, subprocess, sys, tempfile, threading

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
            auth = {"Authorization": f"Bearer {token}"}
            sids = [server.mcp_session(port, auth) for _ in range(server.CONNECTIONS)]
            out = server.mcp_search(port, sids, auth, seconds, work)
            c = sqlite3.connect(db)
            try:
                out["audit_rows"] = c.execute("SELECT count(*) FROM hub_audit").fetchone()[0]
            finally:
                c.close()
            out["seconds"] = seconds
            return out, None
        finally:
            p.terminate()
            p.wait(10)


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 10), indent=2))
