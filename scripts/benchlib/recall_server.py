"""One long-running `aletheia server` over a store of given memories, for the recall benchmarks
(scripts/locomo, scripts/coderecall).

Why a server: a benchmark asks hundreds or thousands of questions, and `aletheia search
--semantic` on the command line loads the embedding model for every one of them; the server
loads it once, and every question is then one HTTP request (`GET /v1/memories`), which is also
the path an agent's searches take.

    from benchlib import recall_server
    bin_ = recall_server.build(ROOT)                    # cargo build --release --bin aletheia
    with recall_server.Recall(bin_, records, semantic=False) as r:
        uids = r.search("why did the parser change", project="p1", limit=10)

`records` are `aletheia import` records (uid, project, kind, type, title, text, tool,
created_at). The store lives in a temporary ALETHEIA_DATA_DIR, removed on exit. With
semantic=True the model comes from ALETHEIA_MODEL_DIR (required), every memory gets a vector
(`aletheia index`) before the server starts, and the server is only used once /v1/health says
the semantic index is ready. Without it ALETHEIA_MODEL_DIR is left out of the server's
environment, and health must say "off", so a words-only run can never be hybrid by accident.
Any other variable in os.environ (ALETHEIA_MODEL, ...) passes through to the binary.

Two variables make repeated runs cheap, for comparing settings: ALETHEIA_RECALL_BIN runs that
binary instead of building one, and ALETHEIA_RECALL_CACHE keeps each store (its memories, and
its vectors of the model in use) in a folder there named by a hash of the records and the
model, so the next run with the same ones imports and indexes nothing.
"""
import hashlib, json, os, re, shutil, subprocess, tempfile, threading, time, urllib.parse, urllib.request


def build(root):
    """Build the release binary in `root` (as the benchmarks always have) and return its path,
    under CARGO_TARGET_DIR when that is set."""
    if os.environ.get("ALETHEIA_RECALL_BIN"):
        return os.environ["ALETHEIA_RECALL_BIN"]
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "aletheia"], cwd=root, check=True)
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(root, "target")
    return os.path.join(os.path.abspath(os.path.join(root, target)), "release", "aletheia")


class Recall:
    def __init__(self, bin_, records, semantic=False, ready_timeout=900):
        self.bin, self.semantic, self.ready_timeout = bin_, semantic, ready_timeout
        self.records = records
        self.proc = None
        self.health = {}
        self.timings = {}

    # -- setup ---------------------------------------------------------------------------------

    def __enter__(self):
        cache = os.environ.get("ALETHEIA_RECALL_CACHE")
        self.kept = None
        if cache:
            key = hashlib.sha256(json.dumps(self.records, sort_keys=True).encode()).hexdigest()[:16]
            model = os.environ.get("ALETHEIA_MODEL", "default") if self.semantic else "words"
            self.kept = os.path.join(cache, f"{key}-{model}")
            os.makedirs(self.kept, exist_ok=True)
            self.work = self.kept
        else:
            self.work = tempfile.mkdtemp(prefix="aletheia-recall-")
        env = dict(os.environ, ALETHEIA_DATA_DIR=self.work, ALETHEIA_LOG=os.environ.get("ALETHEIA_LOG", "warn"))
        if self.semantic:
            if not os.environ.get("ALETHEIA_MODEL_DIR"):
                raise SystemExit("--semantic needs ALETHEIA_MODEL_DIR (the embedding model's folder)")
        else:
            env.pop("ALETHEIA_MODEL_DIR", None)
        self.env = env
        try:
            self._import()
            if self.semantic:
                t = time.monotonic()
                subprocess.run([self.bin, "index"], env=env, check=True, stdout=subprocess.DEVNULL)
                self.timings["index_s"] = time.monotonic() - t
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _import(self):
        t = time.monotonic()
        done = os.path.join(self.work, "imported")
        if self.kept and os.path.exists(done):
            return
        path = os.path.join(self.work, "memories.jsonl")
        with open(path, "w") as f:
            for r in self.records:
                f.write(json.dumps(r) + "\n")
        subprocess.run([self.bin, "import", path], env=self.env, check=True, stdout=subprocess.DEVNULL)
        os.remove(path)
        if self.kept:
            open(done, "w").close()
        self.timings["import_s"] = time.monotonic() - t

    def _start(self):
        t = time.monotonic()
        # Port 0: the server picks a free loopback port and names it on its first line.
        # No worker: the benchmark stores no transcripts, so there is nothing to compress.
        self.proc = subprocess.Popen([self.bin, "server", "--port", "0", "--no-worker"], env=self.env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        first = self.proc.stderr.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)", first)
        if not m:
            raise RuntimeError(f"the server did not start: {first!r}")
        self.base = f"http://127.0.0.1:{m.group(1)}"
        # Keep reading its log so it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
        self._wait_ready()
        self.timings["ready_s"] = time.monotonic() - t

    def _wait_ready(self):
        """Wait until the server answers and, when a model is expected, until the semantic
        index is ready. A "reranker" field, where the server has one, is waited on while it
        says "loading" (an "off" re-ranker is not going to become ready)."""
        deadline = time.monotonic() + self.ready_timeout
        while True:
            try:
                self.health = self._get("/v1/health")
            except OSError:
                self.health = {}
            sem, rr = self.health.get("semantic_index"), self.health.get("reranker")
            if self.health:
                if not self.semantic and sem not in (None, "off"):
                    raise RuntimeError(f"a words-only run found a model loading: {self.health}")
                if (not self.semantic or sem == "ready") and rr != "loading":
                    return
                if self.semantic and sem == "off":
                    raise RuntimeError(f"the server found no model in ALETHEIA_MODEL_DIR: {self.health}")
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self.proc.returncode}) before it was ready")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server was not ready after {self.ready_timeout}s: {self.health}")
            time.sleep(0.2)

    # -- use -----------------------------------------------------------------------------------

    def _get(self, path, params=None):
        url = self.base + path + ("?" + urllib.parse.urlencode(params) if params else "")
        headers = {}
        if os.environ.get("ALETHEIA_API_KEY"):
            headers["Authorization"] = "Bearer " + os.environ["ALETHEIA_API_KEY"]
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=120) as r:
            return json.load(r)

    def search_hits(self, query, project, limit=10):
        """The search's hits as the API returns them (each a memory with its score)."""
        out = self._get("/v1/memories", {"query": query, "project": project, "limit": limit})
        return out.get("hits", []) if isinstance(out, dict) else out

    def search(self, query, project, limit=10):
        """The uids of the top `limit` memories for `query` in `project`, best first."""
        return [h["uid"] for h in self.search_hits(query, project, limit)]

    # -- teardown ------------------------------------------------------------------------------

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if not self.kept:
            shutil.rmtree(self.work, ignore_errors=True)
        return False
