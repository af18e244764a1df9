"""Buried memories: does keyword search still find an older, relevant memory once many newer
ones share its everyday words?

A store keeps growing, and a memory written a year ago sits under every memory written since.
Most of those newer memories share only common words with a question about the old one
("returns", "value", "error", "file"), yet a search that looks only at the newest matches of
any query word never scores the old memory at all. This benchmark measures that: a known-item
retrieval task over real prose, asked of Aletheia's search and of a textbook BM25 computed over
exactly the same memories. The headline figure is the ratio of their nDCG@10; the goal is a
keyword ranking at least as good as plain BM25 over the same memories (ratio >= 1.0).

The prose is the doc comments of the Rust crates in ~/.cargo/registry/src, which every
developer machine with a Rust toolchain has offline:

- OLD memories: items whose doc is a one-line summary, a blank line and a body of at least 25
  words (fenced code removed). The memory is the body; the query is the summary, so each query
  has exactly one relevant memory (bodies are deduplicated, so no identical copy competes).
- NEWER memories: paragraphs (at least 10 words) of the doc comments of other crate families.
  A registry of a few hundred crates holds only a few thousand distinct items of the OLD shape
  (about 5,500 in one of 340 crate directories), far fewer than the 20,000 newer memories
  needed, so the newer ones are paragraphs: everyday-sized notes that share the common words
  of the queries but are never relevant to them.

The two groups come from disjoint crate families (a crate's name up to its first '-' or '_',
so clap and clap_builder, or serde and serde_json, land on the same side), so a newer memory is
not a near copy of an old one. Everything is chosen from sorted paths with a seeded
random.Random, so a given registry gives the same corpus on every run.

Rankings, top 10 each, over one project:
  (a)  Aletheia: `aletheia search --json` against a store of OLD (dated a year before the newest
       memory, over one month) under NEWER (over the last six months), imported in date order.
  (b)  Textbook BM25 (k1 1.2, b 0.75, idf ln(1 + (N - n + 0.5)/(n + 0.5)), one field: title and
       text, no stopwords removed) over every memory of that store, read back with `export`.
  (c)  The same BM25 over the OLD memories alone: the ranking without the burial.
  (a') Aletheia against a store holding only the OLD memories, to compare with (c).
Tokens are the store's own: the reference indexes are SQLite FTS5 tables with the store's
tokenizer, read back through fts5vocab.

  python3 scripts/benchlib/buried.py [BIN]    (default: target/release/aletheia)
"""
import concurrent.futures
import glob
import heapq
import json
import math
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BIN = os.path.join(ROOT, "target/release/aletheia")
REGISTRY = os.path.expanduser("~/.cargo/registry/src")
PROJECT = "bench-buried"
# The store's tokenizer (src/store/schema.rs); the reference BM25 must see the same tokens.
TOKENIZE = "porter unicode61 remove_diacritics 2"
K1, B = 1.2, 0.75
TOP = 10
DAY = 86_400_000
# A fixed "now", so the store's dates (and any recency weighting) are the same on every run.
NEWEST = 1_748_736_000_000  # 2025-06-01T00:00:00Z
BODY_MIN_WORDS = 25
PARAGRAPH_MIN_WORDS = 10
# A summary of one or two words ("Constructor.") is no question anyone would ask.
SUMMARY_MIN_WORDS = 3

DOC_LINE = re.compile(r"^\s*//(/(?!/)|!) ?(.*)$")
VERSION = re.compile(r"-\d+\.\d+\.\d+.*$")


# ---------------------------------------------------------------------------------------------
# The prose

def family(crate_dir):
    """A crate family: the directory's name without its version, up to the first '-' or '_'."""
    return re.split(r"[-_]", VERSION.sub("", crate_dir))[0].lower()


def without_code(lines):
    """Doc lines outside fenced code blocks: the prose, not the examples."""
    out, fenced = [], False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            out.append(line)
    return out


def tidy(lines):
    """Lines joined, runs of blank lines made one, ends trimmed."""
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", "\n".join(l.rstrip() for l in lines)).strip()


def doc_blocks(path):
    """Each run of consecutive doc-comment lines in a file, as (marker, lines); marker is '/'
    for an item's `///` doc and '!' for a module's `//!` doc."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return
    block, marker = [], None
    for line in text.split("\n"):
        m = DOC_LINE.match(line)
        if m and m.group(1) == marker:
            block.append(m.group(2))
            continue
        if block:
            yield marker, block
        block, marker = ([m.group(2)], m.group(1)) if m else ([], None)
    if block:
        yield marker, block


def item(block):
    """(summary, body) of an item doc that is a one-line summary, a blank line and a body of
    at least BODY_MIN_WORDS words; None for any other doc."""
    if len(block) < 3 or not block[0].strip() or block[1].strip():
        return None
    summary, body = block[0].strip(), tidy(without_code(block[2:]))
    if len(summary.split()) < SUMMARY_MIN_WORDS or len(body.split()) < BODY_MIN_WORDS:
        return None
    return summary, body


def paragraphs(block):
    """The prose paragraphs of a doc of at least PARAGRAPH_MIN_WORDS words."""
    for p in re.split(r"\n\s*\n", tidy(without_code(block))):
        if len(p.split()) >= PARAGRAPH_MIN_WORDS:
            yield p.strip()


def collect(registry=REGISTRY):
    """Per crate family: its items {body: summary} (the first summary met, in path order) and
    its paragraphs (a set). Paths are walked sorted, so the result depends only on the files."""
    items, paras = {}, {}
    crates = 0
    for root in sorted(glob.glob(os.path.join(registry, "*"))):
        for crate in sorted(os.listdir(root)):
            crates += 1
            fam = family(crate)
            fi, fp = items.setdefault(fam, {}), paras.setdefault(fam, set())
            for dirpath, dirnames, filenames in os.walk(os.path.join(root, crate)):
                dirnames.sort()
                for name in sorted(filenames):
                    if not name.endswith(".rs"):
                        continue
                    for marker, block in doc_blocks(os.path.join(dirpath, name)):
                        if marker == "/" and (it := item(block)):
                            fi.setdefault(it[1], it[0])
                        fp.update(paragraphs(block))
    return items, paras, crates


def choose(items, paras, n_old, n_new, rng):
    """OLD: whole crate families, in a seeded order, until their items reach n_old, then n_old
    of those items; NEWER: n_new paragraphs of the remaining families. Bodies are unique across
    both, so every query has one relevant memory."""
    families = sorted(items)
    rng.shuffle(families)
    old_families, pool = [], {}
    for fam in families:
        if len(pool) >= n_old:
            break
        if items[fam]:
            old_families.append(fam)
            for body, summary in items[fam].items():
                pool.setdefault(body, summary)
    if len(pool) < n_old:
        raise ValueError(f"the registry has {len(pool)} items of the old shape; {n_old} asked")
    old_bodies = rng.sample(sorted(pool), n_old)
    taken = set(old_families)
    newer_pool = set()
    for fam in sorted(paras):
        if fam not in taken:
            newer_pool |= paras[fam]
    newer_pool -= set(pool)
    if len(newer_pool) < n_new:
        raise ValueError(f"the other crate families have {len(newer_pool)} paragraphs; {n_new} asked")
    newer = rng.sample(sorted(newer_pool), n_new)
    return [(pool[b], b) for b in old_bodies], newer, sorted(old_families)


def question(summary):
    """The summary as a user would type it: the words of its markdown, not its markup."""
    s = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", summary)   # [text](url)
    s = re.sub(r"\[([^\]]*)\]\[[^\]]*\]", r"\1", s)        # [text][ref]
    s = re.sub(r"[`*\[\]]", "", s)
    return " ".join(s.split())


# ---------------------------------------------------------------------------------------------
# The stores

def memory(uid, body, at):
    return {"uid": uid, "project": PROJECT, "kind": "note", "type": "note",
            "title": " ".join(body.split())[:80], "text": body, "tool": "bench", "created_at": at}


def spread(n, start, end, rng):
    """n times over [start, end), evenly, in a seeded order (so time says nothing of origin)."""
    times = [start + (end - start) * i // n for i in range(n)]
    rng.shuffle(times)
    return times


def build_store(bin_path, work, name, records):
    """Import the records, oldest first (ids then follow time, as in a store that grew), into a
    fresh data directory; returns the environment that opens it and the import's seconds."""
    data = os.path.join(work, name)
    os.makedirs(data)
    src = os.path.join(work, name + ".jsonl")
    with open(src, "w") as f:
        for r in sorted(records, key=lambda r: (r["created_at"], r["uid"])):
            f.write(json.dumps(r) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env["ALETHEIA_DATA_DIR"] = data
    t = time.perf_counter()
    subprocess.run([bin_path, "import", src], env=env, check=True, stdout=subprocess.DEVNULL)
    return env, time.perf_counter() - t


def stored(bin_path, env):
    """Every memory of the project as the store holds it (after redaction and any cut), so
    the reference ranks what Aletheia ranks: [(uid, title + text, created_at)], oldest first."""
    out = subprocess.run([bin_path, "export", "--project", PROJECT], env=env, check=True,
                         capture_output=True, text=True).stdout
    rows = [json.loads(l) for l in out.splitlines() if l.strip()]
    rows.sort(key=lambda m: (m["created_at"], m["uid"]))
    return [(m["uid"], f"{m.get('title') or ''} {m['text']}", m["created_at"]) for m in rows]


def aletheia_search(bin_path, env, query):
    out = subprocess.run([bin_path, "search", "--json", "--project", PROJECT, "--limit", str(TOP),
                          "--", query], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"aletheia search failed ({out.returncode}): {out.stderr.strip()}")
    text = out.stdout.strip()
    if not text:
        return []
    # The CLI prints one hit per line; a single {"hits": [...]} object is read too.
    try:
        whole = json.loads(text)
        if isinstance(whole, dict) and "hits" in whole:
            return [h["uid"] for h in whole["hits"]][:TOP]
    except json.JSONDecodeError:
        pass
    return [json.loads(l)["uid"] for l in text.splitlines() if l.strip()][:TOP]


def aletheia_rankings(bin_path, env, queries):
    """One `aletheia search` process per query: what a user or a hook runs. Searches only read,
    so they run side by side, one per CPU, to keep the benchmark short."""
    workers = max(1, min(8, os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda q: aletheia_search(bin_path, env, q), queries))


# ---------------------------------------------------------------------------------------------
# The reference: textbook BM25 over the same tokens

def fts_tokens(texts):
    """Each text's tokens (with repeats) as the store's tokenizer makes them: the texts go into
    an in-memory FTS5 table with the same tokenizer, and come back through fts5vocab."""
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE d USING fts5(body, tokenize = '{TOKENIZE}')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(d, 'instance')")
    db.executemany("INSERT INTO d (rowid, body) VALUES (?, ?)", ((i, t) for i, t in enumerate(texts)))
    tokens = [[] for _ in texts]
    for term, doc in db.execute("SELECT term, doc FROM v"):
        tokens[doc].append(term)
    db.close()
    return tokens


class BM25:
    """Robertson/Spärck Jones BM25 over one field, k1 1.2, b 0.75, with the idf that never goes
    below zero: ln(1 + (N - n + 0.5) / (n + 0.5))."""

    def __init__(self, docs):
        """docs: [(uid, text, created_at)]."""
        self.uids = [d[0] for d in docs]
        self.postings = {}
        lengths = []
        for i, toks in enumerate(fts_tokens([d[1] for d in docs])):
            lengths.append(len(toks))
            tf = {}
            for t in toks:
                tf[t] = tf.get(t, 0) + 1
            for t, c in tf.items():
                self.postings.setdefault(t, []).append((i, c))
        n = len(docs)
        avgdl = sum(lengths) / n
        self.norm = [K1 * (1 - B + B * dl / avgdl) for dl in lengths]
        self.idf = {t: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in self.postings.items()}
        # Order on equal scores: the newer memory first, as Aletheia orders a tie.
        self.order = sorted(range(n), key=lambda i: (docs[i][2], docs[i][0]))
        self.position = [0] * n
        for k, i in enumerate(self.order):
            self.position[i] = k

    def top(self, terms, k=TOP):
        """The uids of the k best documents for a set of query terms (each counted once)."""
        acc = {}
        for t in terms:
            idf = self.idf.get(t)
            if idf is None:
                continue
            norm = self.norm
            for i, tf in self.postings[t]:
                acc[i] = acc.get(i, 0.0) + idf * tf * (K1 + 1) / (tf + norm[i])
        best = heapq.nlargest(k, acc.items(), key=lambda e: (e[1], self.position[e[0]]))
        return [self.uids[i] for i, _ in best]


# ---------------------------------------------------------------------------------------------
# Scores

def scores(rankings, relevant):
    """nDCG@10 with binary gains (one relevant memory per query, so the ideal DCG is 1),
    hit@1, hit@10 and MRR@10, averaged over the queries."""
    out = {"ndcg@10": 0.0, "hit@1": 0.0, "hit@10": 0.0, "mrr@10": 0.0}
    for ranked, want in zip(rankings, relevant):
        rank = next((r for r, uid in enumerate(ranked[:TOP], 1) if uid == want), None)
        if rank:
            out["ndcg@10"] += 1 / math.log2(rank + 1)
            out["hit@1"] += rank == 1
            out["hit@10"] += 1
            out["mrr@10"] += 1 / rank
    return {k: v / len(relevant) for k, v in out.items()}


def found(rankings, relevant):
    return [want in ranked[:TOP] for ranked, want in zip(rankings, relevant)]


def ratio(a, b):
    return a / b if b else None


def run(bin_path, n_old=2000, n_new=20000, n_queries=300, seed=11):
    """Build both stores, ask every query of both systems, and return every figure."""
    t0 = time.perf_counter()
    rng = random.Random(seed)
    items, paras, crates = collect()
    old, newer, old_families = choose(items, paras, n_old, n_new, rng)
    t_collect = time.perf_counter() - t0

    old_times = spread(n_old, NEWEST - 395 * DAY, NEWEST - 365 * DAY, rng)
    new_times = spread(n_new, NEWEST - 182 * DAY, NEWEST + 1, rng)
    old_records = [memory(f"old-{i:05d}", body, at) for i, ((_, body), at) in enumerate(zip(old, old_times))]
    new_records = [memory(f"new-{i:05d}", body, at) for i, (body, at) in enumerate(zip(newer, new_times))]
    asked = sorted(rng.sample(range(n_old), n_queries))
    queries = [question(old[i][0]) for i in asked]
    relevant = [old_records[i]["uid"] for i in asked]

    with tempfile.TemporaryDirectory(prefix="aletheia-buried-") as work:
        buried_env, t_import_buried = build_store(bin_path, work, "buried", old_records + new_records)
        alone_env, t_import_alone = build_store(bin_path, work, "alone", old_records)

        t = time.perf_counter()
        a = aletheia_rankings(bin_path, buried_env, queries)
        t_search_buried = time.perf_counter() - t
        t = time.perf_counter()
        a_alone = aletheia_rankings(bin_path, alone_env, queries)
        t_search_alone = time.perf_counter() - t

        t = time.perf_counter()
        buried_docs, alone_docs = stored(bin_path, buried_env), stored(bin_path, alone_env)
        query_terms = [set(ts) for ts in fts_tokens(queries)]
        everything, old_only = BM25(buried_docs), BM25(alone_docs)
        b = [everything.top(q) for q in query_terms]
        c = [old_only.top(q) for q in query_terms]
        t_bm25 = time.perf_counter() - t

    sa, sb, sc, sa_alone = scores(a, relevant), scores(b, relevant), scores(c, relevant), scores(a_alone, relevant)
    fa, fb, fa_alone, fc = found(a, relevant), found(b, relevant), found(a_alone, relevant), found(c, relevant)
    return {
        "corpus": {
            "old": n_old, "newer": n_new, "queries": n_queries, "seed": seed,
            "memories_in_buried_store": len(buried_docs), "memories_in_unburied_store": len(alone_docs),
            "registry_crates": crates, "old_families": old_families,
            "old_dates": "a year before the newest memory, over 30 days",
            "newer_dates": "the last 182 days",
        },
        "buried": {
            "aletheia": sa, "bm25_same_memories": sb, "bm25_old_alone": sc,
            "ratio_ndcg": ratio(sa["ndcg@10"], sb["ndcg@10"]),
            # Where the two part ways: the known item in BM25's top 10 and not in Aletheia's,
            # and the other way round.
            "missed_by_aletheia_found_by_bm25": sum(y and not x for x, y in zip(fa, fb)),
            "found_by_aletheia_missed_by_bm25": sum(x and not y for x, y in zip(fa, fb)),
        },
        "unburied": {
            "aletheia": sa_alone, "bm25": sc,
            "ratio_ndcg": ratio(sa_alone["ndcg@10"], sc["ndcg@10"]),
            "missed_by_aletheia_found_by_bm25": sum(y and not x for x, y in zip(fa_alone, fc)),
            "found_by_aletheia_missed_by_bm25": sum(x and not y for x, y in zip(fa_alone, fc)),
        },
        "seconds": {
            "collect_prose": t_collect,
            "import_buried": t_import_buried, "import_unburied": t_import_alone,
            "import_per_s": (n_old + n_new) / t_import_buried,
            "search_buried": t_search_buried, "search_unburied": t_search_alone,
            "bm25_reference": t_bm25, "total": time.perf_counter() - t0,
        },
    }


def table(r):
    c = r["corpus"]
    head = f"{'':<44} {'nDCG@10':>8} {'hit@1':>7} {'hit@10':>7} {'MRR@10':>7}"
    row = lambda name, s: f"  {name:<42} {s['ndcg@10']:>8.3f} {s['hit@1']:>7.3f} {s['hit@10']:>7.3f} {s['mrr@10']:>7.3f}"
    bu, un, sec = r["buried"], r["unburied"], r["seconds"]
    fmt = lambda x: "n/a" if x is None else f"{x:.3f}"
    return "\n".join([
        f"{c['queries']} known-item queries; {c['old']:,} old memories, {c['newer']:,} newer ones (seed {c['seed']})",
        head,
        f"buried: the old memories under the newer ones ({c['memories_in_buried_store']:,} memories)",
        row("(a)  Aletheia search", bu["aletheia"]),
        row("(b)  BM25 over the same memories", bu["bm25_same_memories"]),
        row("(c)  BM25 over the old memories alone", bu["bm25_old_alone"]),
        f"  nDCG@10 ratio (a)/(b): {fmt(bu['ratio_ndcg'])}   "
        f"known item in (b)'s top 10, not (a)'s: {bu['missed_by_aletheia_found_by_bm25']}; "
        f"the reverse: {bu['found_by_aletheia_missed_by_bm25']}",
        f"unburied: the old memories alone ({c['memories_in_unburied_store']:,} memories)",
        row("(a') Aletheia search", un["aletheia"]),
        row("(c)  BM25", un["bm25"]),
        f"  nDCG@10 ratio (a')/(c): {fmt(un['ratio_ndcg'])}   "
        f"known item in (c)'s top 10, not (a')'s: {un['missed_by_aletheia_found_by_bm25']}; "
        f"the reverse: {un['found_by_aletheia_missed_by_bm25']}",
        f"seconds: prose {sec['collect_prose']:.1f}, import {sec['import_buried']:.1f} + {sec['import_unburied']:.1f} "
        f"({sec['import_per_s']:,.0f} memories/s), searches {sec['search_buried']:.1f} + {sec['search_unburied']:.1f}, "
        f"BM25 {sec['bm25_reference']:.1f}, total {sec['total']:.1f}",
    ])


def ensure_binary(path):
    """Build the release binary when it is missing. The sources may be mid-edit, so a failed
    build is retried after a minute, a few times."""
    for attempt in range(3):
        if os.path.exists(path):
            return
        if attempt:
            time.sleep(60)
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "aletheia"], cwd=ROOT)
    if not os.path.exists(path):
        sys.exit(f"no binary at {path}, and `cargo build --release` did not make one")


if __name__ == "__main__":
    bin_path = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_BIN
    if bin_path == DEFAULT_BIN:
        ensure_binary(bin_path)
    result = run(bin_path)
    print(table(result))
    print(json.dumps(result, indent=2))
