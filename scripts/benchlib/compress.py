"""Compression throughput: `aletheia compress` with the rule extractor over 10,000 queued notes.

The notes read like what sessions leave behind: a durable statement or two ("The billing worker
stores invoices in Postgres.") among narration, test output and plans that the extractor must
drop. They are imported into one project and compressed as that project's job, which cuts them
into windows of 20 (the default). Each run starts from a copy of the same store, so every run
does the same work; the figure is windows per second (wall clock, the whole process) and the
process's peak RSS from GNU time.

    python3 scripts/benchlib/compress.py target/release/aletheia
"""
import json, os, random, shutil, statistics, subprocess, sys, tempfile, time

SERVICES = "billing checkout cart search auth ledger export import notify gateway scheduler report".split()
PARTS = "service worker API daemon job queue cache index pipeline".split()
FACTS = [
    "The {s} {p} uses {t} for storage.",
    "The {s} {p} listens on port {n}.",
    "The {s} {p} requires {t} {v}.",
    "The {s} {p} stores {x} in {t}.",
    "The {s} {p} depends on the {s2} {p2}.",
    "The {s} {p} runs on {o}.",
    "The {s} {p} defaults to {n} retries.",
    "Every {s} migration must be reversible.",
]
NOISE = [
    "I updated the {s} handler and added a test.",
    "All tests pass: {n} passed, 0 failed.",
    "Next we should look at the flaky {s} test.",
    "It might be worth caching the {s} lookups.",
    "Run `cargo test -p {s}` before you push.",
    "error[E0382]: borrow of moved value: `{s}`",
    "+    timeout = {n}",
    "We switched the {s} {p} to the new client yesterday.",
    "Fixed the {s} bug where totals were off by one.",
    "Is the {s} {p} still used by the mobile app?",
]
TECH = "SQLite Postgres Redis Kafka RabbitMQ S3 DynamoDB MySQL ClickHouse Elasticsearch".split()
OS_ = ["Linux", "Kubernetes", "the edge nodes", "a single VM", "Fargate"]
THINGS = "invoices sessions carts tokens events reports receipts orders".split()


def note(rnd):
    def fill(t):
        return t.format(s=rnd.choice(SERVICES), p=rnd.choice(PARTS), s2=rnd.choice(SERVICES),
                        p2=rnd.choice(PARTS), t=rnd.choice(TECH), v=rnd.randrange(5, 18),
                        n=rnd.randrange(1000, 9999), x=rnd.choice(THINGS), o=rnd.choice(OS_))
    sentences = [fill(rnd.choice(NOISE)) for _ in range(rnd.randrange(2, 6))]
    for _ in range(rnd.choice([0, 1, 1, 2])):
        sentences.insert(rnd.randrange(len(sentences) + 1), fill(rnd.choice(FACTS)))
    return " ".join(sentences)


def make(bin_path, work, n):
    data = os.path.join(work, "compress-seed")
    os.makedirs(data)
    rnd = random.Random(11)
    src = os.path.join(work, "compress-notes.jsonl")
    t0 = 1_790_000_000_000
    with open(src, "w") as f:
        for i in range(n):
            f.write(json.dumps({"project": "bench", "kind": "note", "text": note(rnd),
                                "created_at": t0 + i * 60_000}) + "\n")
    env = dict(os.environ, ALETHEIA_DATA_DIR=data)
    subprocess.run([bin_path, "import", src], env=env, check=True, stdout=subprocess.DEVNULL)
    return data


def run(bin_path, work=None, n=10_000, runs=3):
    own = work is None
    work = work or tempfile.mkdtemp()
    try:
        seed = make(bin_path, work, n)
        samples = []
        for i in range(runs):
            data = os.path.join(work, f"compress-{i}")
            shutil.copytree(seed, data)
            env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
            env.update(ALETHEIA_DATA_DIR=data, ALETHEIA_PROVIDER="none")
            t = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "%M", bin_path, "--json", "compress", "--project", "bench"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
            dt = time.perf_counter() - t
            peak_kib = int(p.stderr.decode().strip().splitlines()[-1])
            out = json.loads(p.stdout)
            reports = [j["report"] for j in out["jobs"] if j["outcome"] == "done"]
            windows = sum(r["windows"] for r in reports)
            samples.append({"seconds": dt, "windows": windows, "peak_mb": peak_kib / 1024,
                            "facts": sum(r["facts_new"] for r in reports),
                            "known": sum(r["facts_known"] for r in reports),
                            "merged": sum(r["merged"] for r in reports)})
        med = statistics.median(s["seconds"] for s in samples)
        first = samples[0]
        return {"notes": n, "windows": first["windows"], "seconds": med,
                "windows_per_s": first["windows"] / med, "notes_per_s": n / med,
                "peak_mb": max(s["peak_mb"] for s in samples), "facts": first["facts"],
                "known": first["known"], "merged": first["merged"], "runs": runs}
    finally:
        if own:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1]), indent=2))
