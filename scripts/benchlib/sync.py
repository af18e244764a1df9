"""`aletheia sync` of a whole store through `aletheia hub` on loopback: a machine whose store the
bench built pushes every memory to an empty hub, then an empty machine pulls them all; then
each side again, killed (SIGKILL) once half the memories have landed and run a second time to
resume. Each machine is a data folder of its own; the store is copied, never synced in place.
Every run is the whole process, timed from spawn to exit, its peak RSS read through GNU time
(`/usr/bin/time -f %M`). Batches are the default 1,000 items; the hub's rate limit is raised for
the run (`ALETHEIA_HUB_RATE`), as at the default 60 requests a minute it would be what is
measured. After each run the memories' uids are compared: the hub, and every machine that
pulled, must end with exactly the store's.

    python3 scripts/benchlib/sync.py target/release/aletheia DATA_DIR
"""
import json, os, shutil, signal, sqlite3, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hub  # noqa: E402
import server  # noqa: E402


def query(db, sql):
    """One value from `db`, opened read-only; waits out a lock held by the writer."""
    for _ in range(1000):
        try:
            c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
            try:
                return c.execute(sql).fetchone()[0]
            finally:
                c.close()
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e):
                raise
            time.sleep(0.01)
    raise RuntimeError(f"{db} stayed locked")


def uids(db):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return {u for (u,) in c.execute("SELECT uid FROM memories")}
    finally:
        c.close()


def count(db):
    return query(db, "SELECT count(*) FROM memories")


def settle(db, quiet=0.5, limit=30):
    """The count of `db`'s memories once it has not moved for `quiet` seconds: a batch the
    killed client had sent may still land after the kill."""
    last, since, end = count(db), time.monotonic(), time.monotonic() + limit
    while time.monotonic() < end:
        time.sleep(0.05)
        now = count(db)
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
    return last


def machine(root, name, store=None):
    """A data folder for one machine, holding a copy of `store`'s files when given."""
    data = os.path.join(root, name)
    os.makedirs(data)
    if store:
        for f in ("hub.db", "hub.db-wal"):
            if os.path.exists(os.path.join(store, f)):
                shutil.copyfile(os.path.join(store, f), os.path.join(data, f))
    return data


class Hub:
    """A fresh `aletheia hub` with an empty store and one sync token."""

    def __init__(self, bin_, root, name):
        self.db = os.path.join(root, f"{name}.db")
        made = subprocess.run([bin_, "--json", "mcp-link", "create", "--hub-db", self.db, "--scope", "sync",
                               "--label", "bench"], capture_output=True, text=True, check=True)
        self.token = json.loads(made.stdout)["token"]
        self.proc, port = hub.start(bin_, self.db)
        self.url = f"http://127.0.0.1:{port}"

    def peak_mb(self):
        return server.rss_kib(self.proc.pid, "VmHWM") / 1024

    def close(self):
        self.proc.terminate()
        self.proc.wait(10)


def sync_argv(bin_, h):
    return [bin_, "--json", "sync", "--hub", h.url, "--token", h.token]


def sync_env(data):
    env = dict(os.environ, ALETHEIA_DATA_DIR=data, ALETHEIA_CWD="/home/dev/proj3", ALETHEIA_LOG="warn")
    env.pop("ALETHEIA_SYNC_BATCH", None)
    return env


def timed_sync(bin_, h, data, root):
    """One whole `aletheia sync` of `data` with hub `h`: its report, seconds and peak MB."""
    rss = os.path.join(root, "rss")
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss] + sync_argv(bin_, h), env=sync_env(data),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        raise RuntimeError(f"aletheia sync exited {p.returncode}: {p.stderr.strip()[-500:]}")
    report = json.loads(p.stdout)
    return report, dt, int(open(rss).read().split()[-1]) / 1024


def killed_sync(bin_, h, data, watched, at, root):
    """Start `aletheia sync` of `data`, SIGKILL it once `watched` (a store's file) holds `at`
    memories; how many it held when the kill was sent, and the seconds until then."""
    err = open(os.path.join(root, "killed.err"), "w+")
    t = time.perf_counter()
    p = subprocess.Popen(sync_argv(bin_, h), env=sync_env(data),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err)
    try:
        while True:
            try:
                n = count(watched) if os.path.exists(watched) else 0
            except sqlite3.DatabaseError:
                n = 0  # the machine's store is still being made
            if n >= at:
                p.send_signal(signal.SIGKILL)
                break
            if p.poll() is not None:
                err.seek(0)
                raise RuntimeError(f"the sync ended (exit {p.returncode}) before {at:,} memories were in {watched} "
                                   f"({n:,}): nothing to interrupt; {err.read().strip()[-300:]}")
            time.sleep(0.02)
        dt = time.perf_counter() - t
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
        err.close()
    if p.returncode != -signal.SIGKILL:
        raise RuntimeError(f"the sync ended (exit {p.returncode}) before the kill at {n:,} memories: nothing was interrupted")
    return n, dt


def check(db, want, what):
    got = uids(db)
    n, distinct = count(db), query(db, "SELECT count(DISTINCT uid) FROM memories")
    if n != len(want) or distinct != len(want) or got != want:
        raise RuntimeError(f"{what}: {n:,} memories ({distinct:,} distinct uids), {len(want - got):,} of the store's "
                           f"{len(want):,} missing and {len(got - want):,} not the store's")
    return n


def run(bin_, data):
    """Push, pull and both resumed after a kill at half, for the store in `data`."""
    src = os.path.join(data, "hub.db")
    want = uids(src)
    n = len(want)
    half = n // 2
    out = {"memories": n}
    with tempfile.TemporaryDirectory() as root:
        # 1 and 2: a whole push to an empty hub, then a whole pull into an empty machine.
        h = Hub(bin_, root, "hub1")
        try:
            a = machine(root, "a1", data)
            r, dt, mb = timed_sync(bin_, h, a, root)
            check(h.db, want, "the hub after the push")
            out["push"] = {"memories": r["pushed_memories"], "seconds": dt, "per_s": r["pushed_memories"] / dt,
                           "peak_mb": mb, "report": r}
            b = machine(root, "b1")
            r, dt, mb = timed_sync(bin_, h, b, root)
            check(os.path.join(b, "hub.db"), want, "the empty machine after its pull")
            out["pull"] = {"memories": r["pulled"]["stored"], "seconds": dt, "per_s": r["pulled"]["stored"] / dt,
                           "peak_mb": mb, "report": r}
            # 3b: a pull killed at half, then resumed, from the same hub.
            b = machine(root, "b2")
            local = os.path.join(b, "hub.db")
            at_kill, to_kill = killed_sync(bin_, h, b, local, half, root)
            before = count(local)
            r, dt, mb = timed_sync(bin_, h, b, root)
            check(local, want, "the machine after its resumed pull")
            out["pull_resumed"] = {"at_kill": at_kill, "seconds_to_kill": to_kill, "before_resume": before,
                                   "memories": r["pulled"]["stored"], "seconds": dt,
                                   "per_s": r["pulled"]["stored"] / dt, "peak_mb": mb, "report": r}
            out["hub_peak_mb"] = h.peak_mb()
        finally:
            h.close()
        # 3a: a push killed at half, then resumed, to a fresh hub.
        h = Hub(bin_, root, "hub2")
        try:
            a = machine(root, "a2", data)
            at_kill, to_kill = killed_sync(bin_, h, a, h.db, half, root)
            before = settle(h.db)
            r, dt, mb = timed_sync(bin_, h, a, root)
            check(h.db, want, "the hub after the resumed push")
            out["push_resumed"] = {"at_kill": at_kill, "seconds_to_kill": to_kill, "before_resume": before,
                                   "memories": r["pushed_memories"], "seconds": dt,
                                   "per_s": r["pushed_memories"] / dt, "peak_mb": mb, "report": r}
        finally:
            h.close()
    return out


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1], sys.argv[2]), indent=2))
