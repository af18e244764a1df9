"""`aletheia hub` on its two engines, side by side on the same memories: a SQLite file
(`--hub-db`) and a PostgreSQL database (`--database`) served by one hub process and by two.

1. The store the bench built becomes a SQLite hub (a copy of it, with tokens), and a copy of
   that hub is moved into PostgreSQL with `aletheia hub migrate --json`, timed.
2. wrk on loopback calls MCP `tools/call search` with a sync token, with 16 and with 64
   connections: on the SQLite hub, on one PostgreSQL hub process, and on two processes serving
   the same database (two wrk processes at once, one per hub, half the connections each; their
   requests/s are summed and their latencies pooled, see `combine`). Every configuration runs
   `rounds` times, interleaved, and each figure is the median over its rounds.
3. Eight machines, each a data folder of its own holding an eighth of the same memories, run
   `aletheia sync` at once against an empty hub: SQLite, PostgreSQL with one process, and
   PostgreSQL with two (machines split between them). Each sync pushes its memories, then pulls
   until it has what the hub holds, the others' memories included. The hub's count is read
   while they run, so both the moment the hub held every memory (the push) and the moment the
   last sync exited (the machines caught up) are known; the hub must end with exactly the
   machines' uids, none twice.

PostgreSQL is a throwaway server (`scripts/postgres`), one database per hub. The hub's rate
limit is raised for every run (`ALETHEIA_HUB_RATE`), as `hub.py` does.

    python3 scripts/benchlib/hub_pg.py target/release/aletheia DATA_DIR CORPUS.jsonl [SECONDS]

DATA_DIR holds the store (`hub.db`) made by importing CORPUS.jsonl; neither is changed.
"""
import bisect, json, os, re, shutil, statistics, subprocess, sys, tempfile, threading, time, urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server  # noqa: E402
import sync  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CONNECTIONS = (16, 64)
MACHINES = 8
# The longest the eight machines' syncs may take before the run is called failed.
DEADLINE = 1200
# wrk's latency percentiles read back from each run: every 0.1 up to 99.9, then every 0.01, then
# the slowest. Pooling two runs' latencies is exact to a tenth of a percent of rank below 99.9.
GRID = [k / 10 for k in range(1, 1000)] + [99.9 + k / 100 for k in range(1, 10)] + [100.0]


# PostgreSQL.

class Postgres:
    """A throwaway PostgreSQL server (`scripts/postgres start`), removed by `close`."""

    def __init__(self):
        # Under /tmp, not in the bench's own folder: the server runs as the `postgres` user, who
        # must reach its cluster's folder.
        self.dir = tempfile.mkdtemp(prefix="aletheia-bench-pg-", dir="/tmp")
        p = subprocess.run([os.path.join(ROOT, "scripts/postgres"), "start", self.dir],
                           capture_output=True, text=True)
        if p.returncode != 0:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise RuntimeError(f"scripts/postgres start exited {p.returncode}: {said(p.stderr)}")
        self.url = p.stdout.strip().splitlines()[-1]
        self.version = psql(self.url, "SHOW server_version")

    def database(self, name):
        """A new, empty database on the server: its URL."""
        psql(self.url, f"CREATE DATABASE {name}")
        return with_database(self.url, name)

    def close(self):
        subprocess.run([os.path.join(ROOT, "scripts/postgres"), "stop", self.dir], capture_output=True)


def with_database(url, name):
    u = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((u.scheme, u.netloc, "/" + name, u.query, u.fragment))


def said(stderr):
    """What a failed command said: its `error:` line when it has one (clap's usage after it is
    left out), else the end of what it wrote."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    first = next((l for l in lines if "error" in l.lower()), None)
    return first or " ".join(lines)[-400:]


def psql(url, sql):
    """What `sql` printed, unaligned and without headers."""
    p = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"psql {sql!r}: {said(p.stderr)}")
    return p.stdout.strip()


# The hub.

class Store:
    """Where one hub's store is: a SQLite file or a PostgreSQL URL, with the flags that name it."""

    def __init__(self, engine, where):
        self.engine, self.where = engine, where
        self.args = ["--hub-db", where] if engine == "SQLite" else ["--database", where]

    def value(self, sql):
        if self.engine == "SQLite":
            return sync.query(self.where, sql)
        return int(psql(self.where, sql))

    def uids(self):
        if self.engine == "SQLite":
            return sync.uids(self.where)
        return set(psql(self.where, "SELECT uid FROM memories").split())

    def token(self, bin_, label):
        made = subprocess.run([bin_, "--json", "mcp-link", "create", *self.args, "--scope", "sync", "--label", label],
                              capture_output=True, text=True)
        if made.returncode != 0:
            raise RuntimeError(f"mcp-link create {self.args[0]} exited {made.returncode}: {said(made.stderr)}")
        return json.loads(made.stdout)["token"]


def start(bin_, store, data):
    """One `aletheia hub` process on `store`, on a free port; its logs (on PostgreSQL) in `data`."""
    os.makedirs(data, exist_ok=True)
    env = dict(os.environ, ALETHEIA_LOG="warn", ALETHEIA_HUB_RATE="1000000000", ALETHEIA_CWD="/home/dev/proj3",
               ALETHEIA_DATA_DIR=data)
    p = subprocess.Popen([bin_, "hub", "--port", "0", *store.args], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    said, port = [], []
    def read():
        for line in p.stderr:
            if not port:
                said.append(line.strip())
                m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
                if m:
                    port.append(int(m.group(1)))
    threading.Thread(target=read, daemon=True).start()
    end = time.monotonic() + 60
    while not port and p.poll() is None and time.monotonic() < end:
        time.sleep(0.02)
    if not port:
        p.kill()
        p.wait()
        raise RuntimeError(f"the hub on {store.engine} did not start: {' / '.join(said)[-400:]!r}")
    return p, port[0]


def stop(procs):
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def probe(port, sid, auth):
    """One search through the hub, as wrk will send it; refuses an error or an empty answer."""
    body = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "search", "arguments": dict(server.QUERIES[0], project=server.PROJECT)}}
    req = urllib.request.Request(f"http://127.0.0.1:{port}/mcp", data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": sid, **auth})
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read().decode()
    data = [l[5:].strip() for l in text.splitlines() if l.startswith("data:")]
    answer = json.loads(data[-1] if data else text)
    result = answer.get("result") or {}
    said = "".join(c.get("text", "") for c in result.get("content", []))
    if "error" in answer or result.get("isError") or not said.strip():
        raise RuntimeError(f"the hub's search answered {text[:300]!r}")
    return said


# wrk.

def wrk_script(sids, threads):
    """The Lua for one wrk process: `tools/call search` cycling through the queries, each thread
    on its own share of `sids` (one session per connection, as separate clients would have), and
    the latency percentiles of `GRID` printed at the end."""
    calls = [json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                         "params": {"name": "search", "arguments": dict(q, project=server.PROJECT)}})
             for q in server.QUERIES]
    per = len(sids) // threads
    return f"""
local bodies = {server.lua_list(calls)}
local sids = {server.lua_list(sids)}
local grid = {{{",".join(repr(p) for p in GRID)}}}
local per = {per}
local i = 0
local n = 0
setup = function(thread)
  thread:set("first", n * per)
  n = n + 1
end
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json, text/event-stream"
wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
wrk.headers["Authorization"] = AUTH
request = function()
  i = i + 1
  local h = {{}}
  for k, v in pairs(wrk.headers) do h[k] = v end
  h["Mcp-Session-Id"] = sids[first + i % per + 1]
  return wrk.format(nil, nil, h, bodies[i % #bodies + 1])
end
done = function(summary, latency, requests)
  for _, p in ipairs(grid) do
    io.write(string.format("Q %.2f %d\\n", p, latency:percentile(p)))
  end
end
"""


def parse_wrk(out):
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    q = [(float(p), int(v) / 1000) for p, v in re.findall(r"^Q ([\d.]+) (\d+)$", out, re.M)]
    if not (rps and total and len(q) == len(GRID)):
        raise RuntimeError(f"wrk's output was not understood: {out[-400:]!r}")
    return {"rps": float(rps.group(1)), "requests": int(total.group(1)),
            "non_2xx": int(bad.group(1)) if bad else 0, "socket_errors": errors.group(1) if errors else "",
            "quantiles": q}


def combine(runs, q):
    """The latency at quantile `q` of every request of `runs` together (each run's percentiles
    weighted by its request count): the least x at which the pooled share of requests answered
    within x reaches q. For one run it is wrk's own percentile."""
    cdfs = [([v for _, v in r["quantiles"]], [p / 100 for p, _ in r["quantiles"]], r["requests"]) for r in runs]
    total = sum(n for *_, n in cdfs)
    for x in sorted({v for vs, *_ in cdfs for v in vs}):
        share = 0.0
        for vs, ps, n in cdfs:
            k = bisect.bisect_right(vs, x)
            share += n * (ps[k - 1] if k else 0.0)
        if share >= q * total - 1e-9:
            return x
    return max(v for vs, *_ in cdfs for v in vs)


def wrk_at_once(targets, seconds, work):
    """One wrk process per (port, sids, auth) in `targets`, all started together for `seconds`,
    two threads in all (the same as one wrk's), each connection on a session of its own: the
    summed requests/s and the pooled latencies."""
    threads = max(1, 2 // len(targets))
    procs = []
    for k, (port, sids, auth) in enumerate(targets):
        path = os.path.join(work, f"wrk-{k}.lua")
        with open(path, "w") as f:
            f.write(f"AUTH = {json.dumps(auth['Authorization'])}\n" + wrk_script(sids, threads))
        procs.append(subprocess.Popen(["wrk", f"-t{threads}", f"-c{len(sids)}", f"-d{seconds}s", "--timeout", "10s",
                                       "-s", path, f"http://127.0.0.1:{port}/mcp"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    runs = []
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            raise RuntimeError(f"wrk exited {p.returncode}: {said(err)}")
        runs.append(parse_wrk(out))
    return {"median_ms": combine(runs, 0.5), "p99_ms": combine(runs, 0.99),
            "rps": sum(r["rps"] for r in runs), "requests": sum(r["requests"] for r in runs),
            "non_2xx": sum(r["non_2xx"] for r in runs),
            "socket_errors": "; ".join(r["socket_errors"] for r in runs if r["socket_errors"])}


# The parts.

def copy_store(data, dest):
    """A copy of the store in `data` (its file and log) at `dest`."""
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    for suffix in ("", "-wal"):
        src = os.path.join(data, "hub.db" + suffix)
        if os.path.exists(src):
            shutil.copyfile(src, dest + suffix)
    return dest


def migrate(bin_, source, url):
    """`aletheia hub migrate` of `source` into `url`, timed as a whole process."""
    t = time.perf_counter()
    p = subprocess.run([bin_, "--json", "hub", "migrate", "--from", source, "--to", url],
                       capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"aletheia hub migrate exited {p.returncode}: {said(p.stderr)}")
    tables = json.loads(p.stdout)
    unequal = [x["table"] for x in tables if x["source"] != x["target"]]
    if unequal:
        raise RuntimeError(f"aletheia hub migrate: counts differ for {', '.join(unequal)}")
    rows = sum(x["target"] for x in tables)
    memories = next(x["target"] for x in tables if x["table"] == "memories")
    # A freshly loaded database has no planner statistics until autovacuum's next pass (within
    # a minute); taking them now keeps that pass from landing in the middle of a measurement.
    t0 = time.perf_counter()
    psql(url, "VACUUM ANALYZE")
    analyzed = time.perf_counter() - t0
    held = {x["table"]: x["target"] for x in tables if x["target"]}
    return {"seconds": dt, "tables": len(held), "rows": rows, "memories": memories, "rows_per_s": rows / dt,
            "memories_per_s": memories / dt, "analyze_seconds": analyzed, "counts": held}


def search(bin_, configs, seconds, rounds, work):
    """wrk's figures for each configuration (label, store, ports, auth) at each connection count,
    `rounds` times interleaved so a slow spell of the shared machine touches all alike."""
    sessions = {}
    for _, store, ports, auth in configs:
        for port in ports:
            sids = [server.mcp_session(port, auth) for _ in range(max(CONNECTIONS))]
            probe(port, sids[0], auth)
            sessions[port] = sids
    # Warm every hub (and PostgreSQL's buffers) before the first measured run.
    for _, _, ports, auth in configs:
        wrk_at_once([(port, sessions[port][:16 // len(ports)], auth) for port in ports], 2, work)
    results = {}
    for r in range(rounds):
        for label, store, ports, auth in configs:
            for c in CONNECTIONS:
                print(f"  search, {label}, {c} connections, round {r + 1} of {rounds} ...", file=sys.stderr)
                res = wrk_at_once([(port, sessions[port][:c // len(ports)], auth) for port in ports], seconds, work)
                results.setdefault((label, c), []).append(res)
    rows = []
    for label, store, ports, _ in configs:
        for c in CONNECTIONS:
            rs = results[(label, c)]
            rows.append({"store": store.engine, "processes": len(ports), "connections": c, "label": label,
                         "median_ms": statistics.median(x["median_ms"] for x in rs),
                         "p99_ms": statistics.median(x["p99_ms"] for x in rs),
                         "rps": statistics.median(x["rps"] for x in rs),
                         "requests": sum(x["requests"] for x in rs), "non_2xx": sum(x["non_2xx"] for x in rs),
                         "socket_errors": "; ".join(x["socket_errors"] for x in rs if x["socket_errors"]),
                         "rounds": rs})
    return rows


def machines(bin_, corpus, root, n):
    """`MACHINES` data folders, the k-th holding the k-th eighth of `corpus`'s first `n` lines,
    imported with `aletheia import -`: the uids of all of them."""
    with open(corpus, "rb") as f:
        lines = [next(f) for _ in range(n)]
    share = n // MACHINES
    dirs = []
    for k in range(MACHINES):
        data = os.path.join(root, f"machine{k}")
        os.makedirs(data)
        part = lines[k * share:(k + 1) * share if k < MACHINES - 1 else n]
        subprocess.run([bin_, "import", "-"], input=b"".join(part), env=dict(os.environ, ALETHEIA_DATA_DIR=data),
                       check=True, stdout=subprocess.DEVNULL)
        dirs.append((data, len(part)))
    want = set()
    for data, size in dirs:
        got = sync.uids(os.path.join(data, "hub.db"))
        if len(got) != size:
            raise RuntimeError(f"{data} holds {len(got):,} memories, not {size:,}")
        want |= got
    if len(want) != n:
        raise RuntimeError(f"the machines hold {len(want):,} distinct uids, not {n:,}")
    return dirs, want


def push_at_once(bin_, store, processes, templates, want, root):
    """Every machine of `templates` (copied afresh) runs `aletheia sync` at once against an empty
    hub on `store` served by `processes` hub processes, the machines split between them."""
    n = len(want)
    tokens = [store.token(bin_, f"machine{k}") for k in range(len(templates))]
    hubs, procs = [], []
    try:
        for k in range(processes):
            hubs.append(start(bin_, store, os.path.join(root, f"hub{k}")))
        runs = []
        for k, ((template, size), token) in enumerate(zip(templates, tokens)):
            data = sync.machine(root, f"m{k}", template)
            port = hubs[k * processes // len(templates)][1]
            p = subprocess.run([bin_, "sync", "setup", "--hub", f"http://127.0.0.1:{port}", "--token", token],
                               env=sync.sync_env(data), capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"aletheia sync setup exited {p.returncode}: {said(p.stderr)}")
            runs.append((data, size))
        ends, files = {}, []
        t0 = time.perf_counter()
        for k, (data, _) in enumerate(runs):
            out, err = open(os.path.join(root, f"m{k}.out"), "w+"), open(os.path.join(root, f"m{k}.err"), "w+")
            files.append((out, err))
            procs.append(subprocess.Popen([bin_, "--json", "sync"], env=sync.sync_env(data),
                                          stdin=subprocess.DEVNULL, stdout=out, stderr=err))
        def wait(k, p):
            p.wait()
            ends[k] = time.perf_counter() - t0
        waiters = [threading.Thread(target=wait, args=(k, p)) for k, p in enumerate(procs)]
        for w in waiters:
            w.start()
        all_in = None
        while any(w.is_alive() for w in waiters):
            # The moment a count saw every memory (taken after the count, so never early).
            if all_in is None and store.value("SELECT count(*) FROM memories") >= n:
                all_in = time.perf_counter() - t0
            if time.perf_counter() - t0 > DEADLINE:
                raise RuntimeError(f"the syncs were still running after {DEADLINE} s "
                                   f"({sum(not w.is_alive() for w in waiters)} of {len(procs)} had exited)")
            time.sleep(0.2)
        for w in waiters:
            w.join()
        reports = []
        for k, (p, (out, err)) in enumerate(zip(procs, files)):
            out.seek(0), err.seek(0)
            if p.returncode != 0:
                raise RuntimeError(f"machine {k}'s sync exited {p.returncode}: {said(err.read())}")
            reports.append(json.loads(out.read()))
            out.close(), err.close()
        pushed = sum(r["pushed_memories"] for r in reports)
        short = [k for k, (r, (_, size)) in enumerate(zip(reports, runs)) if r["pushed_memories"] != size]
        if short:
            raise RuntimeError(f"machines {short} did not push all their memories: {[reports[k] for k in short]}")
        count, distinct = store.value("SELECT count(*) FROM memories"), store.value("SELECT count(DISTINCT uid) FROM memories")
        got = store.uids()
        if count != n or distinct != n or got != want:
            raise RuntimeError(f"the hub holds {count:,} memories ({distinct:,} distinct uids), {len(want - got):,} of "
                               f"the machines' {n:,} missing and {len(got - want):,} not theirs")
        # Whether each machine, once its sync exited, held every memory: a sync pulls until it
        # has what the hub held when it asked, so one that finished while others still pushed
        # would not.
        held = [sync.count(os.path.join(data, "hub.db")) for data, _ in runs]
        wall = max(ends.values())
        if all_in is None:
            all_in = wall  # the last sync exited before a count saw them all: it pushed last
        return {"store": store.engine, "processes": processes, "machines": len(templates), "memories": pushed,
                "all_on_hub_s": all_in, "push_per_s": n / all_in, "wall_s": wall, "per_s": n / wall,
                "first_exit_s": min(ends.values()), "pulled": sum(r["pulled"]["stored"] for r in reports),
                "distinct_uids": distinct, "machines_with_all": sum(h == n for h in held), "least_held": min(held),
                "hub_peak_mb": [server.rss_kib(p.pid, "VmHWM") / 1024 for p, _ in hubs]}
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        stop([p for p, _ in hubs])


def reason(e):
    """An exception as one line for the doc."""
    return f"{type(e).__name__}: " + " ".join(str(e).split()).rstrip(".")


def run(bin_, data, corpus, seconds=10, rounds=3):
    """Every figure above for the store in `data` (imported from `corpus`): a dict, with the
    reason beside any part that could not be measured."""
    if not shutil.which("wrk"):
        return None, "wrk is not installed (apt-get install wrk)"
    n = sync.count(os.path.join(data, "hub.db"))
    out = {"memories": n, "seconds": seconds, "rounds": rounds, "connections": list(CONNECTIONS),
           "machines": MACHINES, "why": {}}
    pg = None
    procs = []
    with tempfile.TemporaryDirectory() as root:
        try:
            # 1. The same memories on both engines.
            sqlite_db = copy_store(data, os.path.join(root, "sqlite", "hub.db"))
            lite = Store("SQLite", sqlite_db)
            lite_auth = {"Authorization": f"Bearer {lite.token(bin_, 'bench')}"}
            source = shutil.copyfile(sqlite_db, os.path.join(root, "migrate-from.db"))
            pg_store = None
            try:
                print("PostgreSQL ...", file=sys.stderr)
                pg = Postgres()
                out["postgres_version"] = pg.version
                print("hub migrate ...", file=sys.stderr)
                pg_store = Store("PostgreSQL", pg.database("hub_search"))
                out["migrate"] = migrate(bin_, source, pg_store.where)
                print(json.dumps(out["migrate"]), file=sys.stderr)
            except Exception as e:
                out["why"]["postgres"] = reason(e)
                print(f"PostgreSQL: {out['why']['postgres']}", file=sys.stderr)
                pg_store = None
            # 2. Search.
            p, port = start(bin_, lite, os.path.join(root, "sqlite"))
            procs.append(p)
            configs = [("SQLite", lite, [port], lite_auth)]
            if pg_store:
                try:
                    # A token made on PostgreSQL itself (the SQLite hub's came across too).
                    pg_auth = {"Authorization": f"Bearer {pg_store.token(bin_, 'bench-pg')}"}
                    ports = []
                    for k in range(2):
                        p, port = start(bin_, pg_store, os.path.join(root, f"pg{k}"))
                        procs.append(p)
                        ports.append(port)
                    configs += [("PostgreSQL, 1 process", pg_store, ports[:1], pg_auth),
                                ("PostgreSQL, 2 processes", pg_store, ports, pg_auth)]
                except Exception as e:
                    out["why"]["postgres_search"] = reason(e)
            with tempfile.TemporaryDirectory() as work:
                try:
                    out["search"] = search(bin_, configs, seconds, rounds, work)
                except Exception as e:
                    if len(configs) == 1:
                        raise
                    # PostgreSQL's hub failed: SQLite's figures alone, with the reason.
                    out["why"]["postgres_search"] = reason(e)
                    out["search"] = search(bin_, configs[:1], seconds, rounds, work)
            measured = {row["store"] for row in out["search"]}
            out["audit"] = {s.engine: {"rows": s.value("SELECT count(*) FROM hub_audit")}
                            for _, s, _, _ in configs if s.engine in measured}
            for row in out["search"]:
                print(f"  {row['label']}, {row['connections']}: median {row['median_ms']:.2f} ms, "
                      f"p99 {row['p99_ms']:.2f} ms, {row['rps']:,.0f}/s", file=sys.stderr)
            stop(procs)
            procs = []
            # 3. Eight machines pushing at once.
            print(f"{MACHINES} machines ...", file=sys.stderr)
            templates, want = machines(bin_, corpus, os.path.join(root, "machines"), n)
            out["push"] = []
            plans = [("SQLite", 1)] + ([("PostgreSQL", 1), ("PostgreSQL", 2)] if pg else [])
            for k, (engine, processes) in enumerate(plans):
                print(f"  push from {MACHINES} machines, {engine}, {processes} hub process(es) ...", file=sys.stderr)
                try:
                    where = (os.path.join(root, f"push{k}", "hub.db") if engine == "SQLite"
                             else pg.database(f"hub_push{k}"))
                    os.makedirs(os.path.join(root, f"push{k}"), exist_ok=True)
                    res = push_at_once(bin_, Store(engine, where), processes, templates, want,
                                       os.path.join(root, f"push{k}"))
                    out["push"].append(res)
                    print(f"  {json.dumps(res)}", file=sys.stderr)
                except Exception as e:
                    out["why"].setdefault("push", []).append({"store": engine, "processes": processes, "why": reason(e)})
                    print(f"  push: {reason(e)}", file=sys.stderr)
                shutil.rmtree(os.path.join(root, f"push{k}"), ignore_errors=True)
        finally:
            stop(procs)
            if pg:
                pg.close()
    return out, None


if __name__ == "__main__":
    res, why = run(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 10)
    print(json.dumps(res, indent=2) if res else why)
