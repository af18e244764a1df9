"""`aletheia server` against clients that only take: 20,000 MCP `initialize` calls (the server's
resident memory from /proc before, after, and after DELETE of the sessions still live), and a
flood of 20,000 idle connections held open (and reopened as the server closes them) while
`/v1/health` is asked over fresh connections. Run with the server's default limits, and once
with the session cap lifted to show what the cap saves.

    python3 scripts/benchlib/limits.py target/release/aletheia

The flood needs 20,000 sockets on the client side: each of two flood processes raises its soft
open-file limit and holds 10,000.
"""
import http.client, json, os, re, resource, socket, statistics, subprocess, sys, tempfile, threading, time

INITS = 20_000
FLOOD = 20_000
FLOODERS = 2
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})


def start(bin_, data, extra=None):
    env = dict(os.environ, ALETHEIA_DATA_DIR=data, ALETHEIA_CWD="/home/dev/proj3", ALETHEIA_LOG="warn", **(extra or {}))
    p = subprocess.Popen([bin_, "server", "--port", "0", "--no-worker"], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)", first)
    if not m:
        p.kill()
        raise RuntimeError(f"the server did not start: {first!r}")
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    return p, int(m.group(1))


def rss_mb(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def files(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def initialize_many(port, n, threads=4):
    """n initialize calls over kept-alive connections; the session ids, in order per thread."""
    ids, lock = [], threading.Lock()

    def work(count):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        for _ in range(count):
            c.request("POST", "/mcp", INIT, {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json",
                                             "Accept": "application/json, text/event-stream"})
            r = c.getresponse()
            r.read()
            if r.status == 200:
                mine.append(r.getheader("mcp-session-id"))
        with lock:
            ids.extend(mine)

    ts = [threading.Thread(target=work, args=(n // threads,)) for _ in range(threads)]
    t0 = time.monotonic()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return ids, time.monotonic() - t0


def delete_all(port, ids):
    """DELETE each session; how many the server still knew (204 for all: it does not say)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for sid in ids:
        c.request("DELETE", "/mcp", headers={"Host": f"127.0.0.1:{port}", "Mcp-Session-Id": sid})
        c.getresponse().read()


def sessions_row(bin_, work, cap=None):
    extra = {"ALETHEIA_MCP_SESSIONS": str(cap)} if cap else None
    p, port = start(bin_, os.path.join(work, f"sessions-{cap or 'default'}"), extra)
    try:
        initialize_many(port, 8)  # warm the allocator and the runtime
        rest = rss_mb(p.pid)
        ids, secs = initialize_many(port, INITS)
        time.sleep(1)
        after = rss_mb(p.pid)
        delete_all(port, ids)
        time.sleep(2)
        deleted = rss_mb(p.pid)
        return {"cap": cap, "inits": len(ids), "seconds": secs, "rss_rest_mb": rest, "rss_after_mb": after,
                "rss_deleted_mb": deleted}
    finally:
        p.terminate()
        p.wait()


FLOODER = r"""
import os, resource, socket, sys, time
port, n, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
def dial():
    s = socket.socket(); s.setblocking(False)
    try: s.connect(("127.0.0.1", port))
    except BlockingIOError: pass
    except OSError: s.close(); return None
    return s
socks = []
while len(socks) < n:
    s = dial()
    if s: socks.append(s)
    else: time.sleep(0.01)
print("ready", flush=True)
end, reopened = time.monotonic() + seconds, 0
while time.monotonic() < end:
    for i, s in enumerate(socks):
        try:
            gone = s.recv(1) == b""
        except BlockingIOError:
            gone = False
        except OSError:
            gone = True
        if gone:
            s.close(); socks[i] = dial() or socks[i]; reopened += 1
    time.sleep(0.2)
print(reopened, flush=True)
"""


def health(port, timeout=10):
    t0 = time.monotonic()
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        c.request("GET", "/v1/health", headers={"Host": f"127.0.0.1:{port}"})
        ok = c.getresponse().status == 200
        c.close()
    except OSError:
        ok = False
    return ok, (time.monotonic() - t0) * 1000


def flood_row(bin_, work, seconds=20, checks=100):
    p, port = start(bin_, os.path.join(work, "flood"))
    try:
        before = [health(port)[1] for _ in range(20)]
        script = os.path.join(work, "flooder.py")
        with open(script, "w") as f:
            f.write(FLOODER)
        per = FLOOD // FLOODERS
        t_open = time.monotonic()
        fl = [subprocess.Popen([sys.executable, script, str(port), str(per), str(seconds)], stdout=subprocess.PIPE, text=True)
              for _ in range(FLOODERS)]
        results, peak_files, peak_rss = [], 0, 0.0
        ready = [False] * FLOODERS
        # Ask while the flood opens its connections and while it holds and reopens them.
        while len(results) < checks:
            results.append(health(port))
            peak_files, peak_rss = max(peak_files, files(p.pid)), max(peak_rss, rss_mb(p.pid))
            time.sleep((seconds - 2) / checks)
        opened = []
        for f in fl:
            out = f.communicate()[0].split()
            opened.append(out)
        ok = [ms for good, ms in results if good]
        reopened = sum(int(o[-1]) for o in opened if len(o) == 2 and o[-1].isdigit())
        return {"flood": FLOOD, "checks": checks, "answered": len(ok),
                "median_ms": statistics.median(ok) if ok else float("nan"),
                "max_ms": max(ok) if ok else float("nan"),
                "before_median_ms": statistics.median(before), "peak_files": peak_files,
                "peak_rss_mb": peak_rss, "reopened": reopened, "seconds": seconds,
                "open_seconds": time.monotonic() - t_open,
                "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)}
    finally:
        p.terminate()
        p.wait()


def run(bin_):
    with tempfile.TemporaryDirectory() as work:
        return {"capped": sessions_row(bin_, work), "uncapped": sessions_row(bin_, work, cap=INITS),
                "flood": flood_row(bin_, work)}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1]), indent=2))
