#!/usr/bin/env python3
"""Build one coderecall data set from a git repository: its commit messages are the memories, its
changelog entries are the questions, and an entry's evidence is the commits it came from.

A changelog entry such as "Add `--exact` option, see #1958 (@someone)" cites a pull request or an
issue; the commits that cite the same number ("Merge pull request #1958 from ...", "... (#1958)",
"Fixes #1958") and, for a merged pull request, the commits it brought in, are where a coding
agent would have written down that change. So the question is the entry's text with the numbers,
links and credits taken out (they would give the answer away, or are noise), and a search that
puts one of those commits near the top has found the change.

    python3 bench/coderecall/build.py GIT_DIR OWNER/REPO [--rev COMMIT] [--out DIR]

GIT_DIR is a git directory (a bare mirror works); OWNER/REPO is the repository's GitHub name,
which recognises links to its own issues; the file is DIR/REPO.jsonl.gz, DIR defaulting to this
folder. The history and CHANGELOG.md are read at COMMIT (default HEAD).
Standard library only. The output is one JSON object a line: first {"type": "meta", ...}, then
{"type": "memory", uid, title, text, created_at} per commit, then {"type": "question", id,
question, evidence, refs, section, source} per kept changelog entry. Counts go to stderr.
"""
import argparse, collections, gzip, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
SHORT = 10  # a short sha of 10 hex digits: unique in a few thousand commits, and stable

# Authors whose commits are release engineering: they stay as memories (distractors a real
# store would hold too) but never make a question's evidence.
BOTS = re.compile(r"\[bot\]|^dependabot|^renovate", re.I)
# Changelog entries that are release engineering rather than a change a developer would look for.
NOISE = re.compile(r"^(bump|bumped|update|updated|upgrade|upgraded)\b.*\b(version|dependenc|crate|msrv|rust)"
                   r"|^(release|prepare|cut) (of )?v?\d|^this is just a re-release", re.I)

# A commit that only writes the changelog ("Add CHANGELOG entry for #1687") says nothing of the
# change: an entry whose only evidence is such commits has no answer among the memories.
BOOKKEEPING = re.compile(r"^(add|write|update)[\w\s]*\bchange ?log\b", re.I)


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True,
                          text=True, errors="replace").stdout


def commits(gitdir, rev):
    """Every commit reachable from `rev`: full sha, parents, committer time, author, message."""
    out = git(gitdir, "log", "--format=%H%x00%P%x00%ct%x00%an%x00%B%x1e", rev)
    for rec in out.split("\x1e"):
        rec = rec.lstrip("\n")
        if not rec:
            continue
        sha, parents, ct, author, body = rec.split("\x00", 4)
        yield {"sha": sha, "parents": parents.split(), "time": int(ct), "author": author,
               "message": body.strip()}


def cited(message, slug):
    """The issue and pull-request numbers a commit message cites: `#123` not glued to another
    word or repository (`rust-lang/rust#123`, `syntect#45` are other projects' numbers),
    `owner/repo#123` for this repository, and links to this repository's issues and pulls."""
    nums = {int(n) for n in re.findall(r"(?<![\w/.#-])#(\d+)\b", message)}
    nums |= {int(n) for n in re.findall(re.escape(slug) + r"#(\d+)\b", message, re.I)}
    nums |= {int(n) for n in re.findall(r"github\.com/" + re.escape(slug) + r"/(?:pull|issues)/(\d+)", message, re.I)}
    return nums


def entries(changelog):
    """The changelog's bullet points, each with its continuation lines and the heading it is under."""
    section, cur = "", None
    for line in changelog.splitlines():
        heading = re.match(r"^#+\s*(.*)", line) or (re.match(r"^\[?v?\d+\.\d+[^\s]*", line) and re.match(r"(.*)", line))
        bullet = re.match(r"^(\s*)[-*+]\s+(.*)", line)
        if bullet:
            if cur:
                yield cur
            cur = {"section": section, "text": bullet.group(2).strip()}
        elif heading and not line.startswith(" "):
            if cur:
                yield cur
            cur = None
            section = heading.group(1).strip()
        elif cur and line.strip() and not re.match(r"^[=-]{3,}\s*$", line):
            cur["text"] += " " + line.strip()
        else:
            if cur:
                yield cur
            cur = None
    if cur:
        yield cur


def refs_and_question(text, slug, shas):
    """The numbers an entry cites, and its text with them, links and author credits removed."""
    refs = set()

    def ref(m):
        refs.add(int(m.group(1)))
        return " REF "

    t = text
    # Markdown links: a link whose text is a number or a handle goes (it is a reference or a
    # credit); otherwise its text stays and its address goes.
    t = re.sub(r"\[#(\d+)\]\([^)]*\)", ref, t)
    t = re.sub(r"\[@?[\w-]+\]\(https?://github\.com/[\w-]+/?\)", " @credit ", t)
    t = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", t)
    t = re.sub(r"https?://github\.com/" + re.escape(slug) + r"/(?:pull|issues)/(\d+)\S*", ref, t, flags=re.I)
    t = re.sub(r"<?https?://[^\s)>]+>?", " ", t)
    t = re.sub(r"(?<![\w/])[\w.-]+/[\w.-]+#\d+\b", " ", t)  # another project's number: not ours, and no words
    t = re.sub(re.escape(slug) + r"#(\d+)\b", ref, t, flags=re.I)
    t = re.sub(r"(?<![\w/#-])#(\d+)\b", ref, t)
    # Credits: "(@a, @b and @c)", "by @a", "thanks to @a", "by [a](https://github.com/a)".
    t = re.sub(r"(thanks( to)?|by|from|cc)?\s*@[\w-]+(\s*(,|and|&)\s*@[\w-]+)*", " ", t, flags=re.I)
    t = t.replace("@credit", " ")
    # A commit sha quoted in the entry names the answer's neighbour; it goes too.
    t = re.sub(r"\b[0-9a-f]{7,40}\b", lambda m: " " if any(s.startswith(m.group(0)) for s in shas) else m.group(0), t)
    # The words that only introduced a reference: "see REF", "Closes REF, see REF and REF".
    # A verb goes only right before its number ("Closes REF"), never across a comma ("has been
    # fixed, see REF" keeps "fixed").
    t = re.sub(r"\b(?:closes|closed|close|fixes|fixed|fix|resolves|resolved|implements)\s+(?:(?:issue|pr)\s+)?(?=REF\b)",
               " ", t, flags=re.I)
    lead = r"(?:see(?: also)?|via|cf\.?|in|on|for|pr|issue|issues|and|&|,|;|/)"
    for _ in range(3):
        t = re.sub(r"(?:\b" + lead + r"\s*)*\bREF\b", " ", t, flags=re.I)
    t = re.sub(r"\(\s*(see|cf\.?)?[\s,;:.]*\)", " ", t, flags=re.I)  # parentheses left empty
    t = re.sub(r"\s+([,.;:!?)])(?=\s|$)", r"\1", t)
    t = re.sub(r"([(])\s+", r"\1", t)
    t = re.sub(r"(?:[,;:]\s*)+([.!?](?=\s|$)|$)", r"\1", t)  # ", ." or a trailing ","
    t = re.sub(r"\(\s*$", "", t)                       # a credit cut off at the line's end
    t = re.sub(r"\s+(see|see also|closes|fixes)\.?\s*$", "", t, flags=re.I)
    t = re.sub(r"\s{2,}", " ", t).strip(" ,;:-")
    t = re.sub(r"\.\s*\.$", ".", t)
    return refs, t


def build(gitdir, name, out_dir, rev="HEAD"):
    head = git(gitdir, "rev-parse", rev + "^{commit}").strip()
    slug = name
    short = name.split("/")[-1]
    cs = list(commits(gitdir, head))
    by_sha = {c["sha"]: c for c in cs}
    # Which commits each number points at: those citing it, and a merged pull request's own commits.
    pointing = collections.defaultdict(set)
    for c in cs:
        if BOTS.search(c["author"]):
            continue
        for n in cited(c["message"], slug):
            pointing[n].add(c["sha"])
        merge = re.match(r"Merge pull request #(\d+) from", c["message"])
        if merge and len(c["parents"]) == 2:
            brought = git(gitdir, "rev-list", "--no-merges", f"^{c['parents'][0]}", c["parents"][1]).split()
            pointing[int(merge.group(1))].update(s for s in brought if s in by_sha
                                                 and not BOTS.search(by_sha[s]["author"]))
    changelog = git(gitdir, "show", f"{head}:CHANGELOG.md")
    shas = [c["sha"] for c in cs]
    by_short = {c["sha"][:SHORT]: c for c in cs}
    questions, dropped = [], collections.Counter()
    for e in entries(changelog):
        refs, q = refs_and_question(e["text"], slug, shas)
        if not refs:
            dropped["cites no number"] += 1
            continue
        evidence = sorted({s[:SHORT] for n in refs for s in pointing.get(n, ())})
        if not evidence:
            dropped["no commit cites its numbers"] += 1
            continue
        if all(BOOKKEEPING.search(by_short[s]["message"].split("\n", 1)[0]) for s in evidence):
            dropped["only a changelog commit cites it"] += 1
            continue
        if len(re.findall(r"[a-z0-9]+", q.lower())) < 4:
            dropped["shorter than 4 words"] += 1
            continue
        if NOISE.search(q):
            dropped["release engineering"] += 1
            continue
        same = next((x for x in questions if x["question"] == q), None)
        if same:  # one change listed twice (two pull requests, or two releases): one question
            same["evidence"] = sorted(set(same["evidence"]) | set(evidence))
            same["refs"] = sorted(set(same["refs"]) | refs)
            dropped["same text as another entry (merged)"] += 1
            continue
        questions.append({"type": "question", "id": f"{short}-q{len(questions) + 1:04d}", "question": q,
                          "evidence": evidence, "refs": sorted(refs), "section": e["section"], "source": e["text"]})
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{short}.jsonl.gz")
    meta = {"type": "meta", "repository": slug, "commit": head, "changelog": "CHANGELOG.md",
            "memories": len(cs), "questions": len(questions), "dropped": dict(dropped),
            "built_by": "bench/coderecall/build.py"}
    # mtime=0: the same input gives the same bytes.
    with gzip.GzipFile(path, "wb", mtime=0) as raw:
        w = lambda obj: raw.write((json.dumps(obj, ensure_ascii=False) + "\n").encode())
        w(meta)
        for c in cs:
            subject = c["message"].split("\n", 1)[0]
            w({"type": "memory", "uid": c["sha"][:SHORT], "title": subject, "text": c["message"],
               "created_at": c["time"] * 1000})
        for q in questions:
            w(q)
    ev = [len(q["evidence"]) for q in questions]
    print(f"{slug} @ {head[:12]}: {len(cs)} memories, {len(questions)} questions "
          f"(evidence per question: mean {sum(ev) / max(len(ev), 1):.1f}, max {max(ev, default=0)}); "
          f"dropped: {dict(dropped)} -> {path}", file=sys.stderr)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gitdir")
    ap.add_argument("name", help="the repository as owner/repo, e.g. sharkdp/bat")
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--rev", default="HEAD", help="the commit to read (default HEAD); the README names each set's")
    a = ap.parse_args()
    build(a.gitdir, a.name, a.out, a.rev)


if __name__ == "__main__":
    main()
