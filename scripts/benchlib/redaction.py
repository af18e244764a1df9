"""Redaction: throughput on a 100 MB mixed corpus, and recall and false positives on a labelled
set of secret shapes (after the shapes gitleaks documents) and ordinary coding text that must
come back unchanged. Everything runs through `aletheia redact`, the same function every write
path uses."""
import base64
import hashlib
import os
import random
import string
import subprocess
import time
import uuid

SEP = "\n=====8<=====\n"
ALNUM = string.ascii_letters + string.digits


def rs(rnd, alphabet, n):
    return "".join(rnd.choice(alphabet) for _ in range(n))


def positives(rnd):
    """(kind, secret) pairs; kinds marked * have no builtin rule and measure what is missed."""
    b64u = ALNUM + "-_"
    jwt = lambda: ".".join(base64.urlsafe_b64encode(x.encode()).decode().rstrip("=") for x in
                           ('{"alg":"HS256","typ":"JWT"}', '{"sub":"%d","name":"dev"}' % rnd.randrange(10**9), rs(rnd, ALNUM, 32)))
    gens = [
        ("anthropic", lambda: "sk-ant-api03-" + rs(rnd, b64u, 93) + "AA"),
        ("openai", lambda: "sk-proj-" + rs(rnd, ALNUM, 48)),
        ("openai-legacy", lambda: "sk-" + rs(rnd, ALNUM, 48)),
        ("stripe", lambda: rnd.choice(["sk_live_", "rk_live_", "sk_test_"]) + rs(rnd, ALNUM, 24)),
        ("github", lambda: rnd.choice(["ghp_", "gho_", "ghs_", "ghu_"]) + rs(rnd, ALNUM, 36)),
        ("github-fine", lambda: "github_pat_" + rs(rnd, ALNUM + "_", 82)),
        ("gitlab", lambda: "glpat-" + rs(rnd, b64u, 20)),
        ("npm", lambda: "npm_" + rs(rnd, ALNUM, 36)),
        ("jwt", jwt),
        ("aws-key-id", lambda: "AKIA" + rs(rnd, string.ascii_uppercase + "234567", 16)),
        ("slack", lambda: "xoxb-" + rs(rnd, string.digits, 12) + "-" + rs(rnd, string.digits, 13) + "-" + rs(rnd, ALNUM, 24)),
        ("slack-webhook", lambda: "https://hooks.slack.com/services/T" + rs(rnd, string.ascii_uppercase + string.digits, 8) + "/B" + rs(rnd, string.ascii_uppercase + string.digits, 8) + "/" + rs(rnd, ALNUM, 24)),
        ("google", lambda: "AIza" + rs(rnd, b64u, 35)),
        ("pem", lambda: "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(rs(rnd, ALNUM + "+/", 64) for _ in range(4)) + "\n-----END RSA PRIVATE KEY-----"),
        ("huggingface", lambda: "hf_" + rs(rnd, string.ascii_letters, 34)),
        ("sendgrid", lambda: "SG." + rs(rnd, b64u, 22) + "." + rs(rnd, b64u, 43)),
        ("pypi", lambda: "pypi-AgEIcHlwaS5vcmc" + rs(rnd, b64u, 60)),
        ("shopify", lambda: "shpat_" + rs(rnd, "0123456789abcdef", 32)),
        ("digitalocean", lambda: "dop_v1_" + rs(rnd, "0123456789abcdef", 64)),
        ("url-password", lambda: f"postgres://app:{rs(rnd, ALNUM, 14)}@db.internal:5432/shop"),
        ("bearer", lambda: "Authorization: Bearer " + rs(rnd, ALNUM, 40)),
        ("assignment", lambda: rnd.choice(["DB_PASSWORD", "client_secret", "API_KEY", "auth_token"]) + "=" + rs(rnd, ALNUM, 20)),
        ("twilio", lambda: "SK" + rs(rnd, "0123456789abcdef", 32)),
        ("mailgun", lambda: "key-" + rs(rnd, "0123456789abcdef", 32)),
        ("telegram", lambda: str(rnd.randrange(10**8, 10**9)) + ":AA" + rs(rnd, b64u, 33)),
        ("linear", lambda: "lin_api_" + rs(rnd, ALNUM, 40)),
        ("postman", lambda: "PMAK-" + rs(rnd, "0123456789abcdef", 24) + "-" + rs(rnd, "0123456789abcdef", 34)),
        ("azure-storage", lambda: "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=" + base64.b64encode(os.urandom(64)).decode()),
        ("datadog*", lambda: "dd " + rs(rnd, "0123456789abcdef", 32)),
    ]
    out = []
    for kind, g in gens:
        for i in range(20):
            secret = g()
            context = rnd.choice(["use {} for the staging deploy", "the key is {} (rotate monthly)", "{}", "curl -d '{}' https://api.example.com"])
            if kind in ("url-password", "bearer", "assignment", "pem"):
                context = "{}"
            out.append((kind, secret, context.format(secret)))
    return out


def negatives(rnd):
    """Ordinary coding text that must come back unchanged."""
    out = []
    for _ in range(40):
        out.append(("git-sha", "commit " + hashlib.sha1(os.urandom(8)).hexdigest()))
        out.append(("uuid", f"request id {uuid.UUID(int=rnd.getrandbits(128))}"))
        out.append(("integrity", '"integrity": "sha512-' + base64.b64encode(os.urandom(64)).decode() + '"'))
        out.append(("url", f"see https://docs.rs/crate{rnd.randrange(999)}/latest/index.html?q=retry#backoff"))
        out.append(("digest", "image@sha256:" + hashlib.sha256(os.urandom(8)).hexdigest()))
        out.append(("base64", "payload " + base64.b64encode(os.urandom(30)).decode()))
        out.append(("code", rnd.choice(["password = getpass.getpass()", "token = request.headers.get('X-Token')",
                                        "let api_key = std::env::var(\"API_KEY\")?;", "max_tokens: 4096",
                                        "if token_count > 100000 {", "secret_name = args.secret_name",
                                        "passwordless login via magic link", "export API_KEY=$API_KEY"])))
        out.append(("path", f"/home/dev/shop/src/{rs(rnd, string.ascii_lowercase, 8)}/mod.rs:{rnd.randrange(999)}"))
    return out


def run_redact(binary, text):
    p = subprocess.run([binary, "redact"], input=text.encode(), capture_output=True, check=True)
    return p.stdout.decode()


def labelled(binary, seed=11):
    """The set written beside the rules, each half redacted as one text (the cases apart)."""
    rnd = random.Random(seed)
    pos, neg = positives(rnd), negatives(rnd)
    batch = lambda texts: run_redact(binary, SEP.join(texts)).split(SEP)
    return (_caught([(kind, text, [secret]) for kind, secret, text in pos], batch),
            _changed(neg, batch))


def throughput(binary, work, mb=100, seed=5):
    """MB/s of `aletheia redact` over `mb` MB of coding text with a secret every ~4 KB."""
    rnd = random.Random(seed)
    pos = positives(rnd)
    words = "fn let mut retry backoff checkout cart pnpm cache staging deploy token count password length the a to of".split()
    path = os.path.join(work, "redact-corpus.txt")
    size = 0
    with open(path, "w") as f:
        while size < mb * 1_000_000:
            line = " ".join(rnd.choice(words) for _ in range(12))
            if rnd.random() < 0.02:
                line += " " + rnd.choice(pos)[2]
            f.write(line + "\n")
            size += len(line) + 1
    best = None
    for _ in range(3):
        t = time.perf_counter()
        with open(path, "rb") as f:
            subprocess.run([binary, "redact"], stdin=f, stdout=subprocess.DEVNULL, check=True)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return size / 1e6 / best


def _each(binary, texts):
    """Each text redacted on its own (one process each), so a block that runs to the end of its
    text (an unclosed private key) cannot swallow the next case."""
    return [run_redact(binary, t) for t in texts]


def _caught(cases, redact):
    """Per kind [caught, total] for (kind, text, secrets): caught when no secret survives.
    `redact` takes the texts and returns them redacted."""
    out = redact([text for _, text, _ in cases])
    assert len(out) == len(cases)
    by_kind = {}
    for (kind, _, secrets), red in zip(cases, out):
        c = by_kind.setdefault(kind, [0, 0])
        c[1] += 1
        c[0] += all(s not in red for s in secrets)
    return by_kind


def _changed(cases, redact):
    """Per kind [changed, total] for (kind, text) that must come back unchanged."""
    out = redact([text for _, text in cases])
    assert len(out) == len(cases)
    by_kind = {}
    for (kind, text), red in zip(cases, out):
        c = by_kind.setdefault(kind, [0, 0])
        c[1] += 1
        c[0] += red != text
    return by_kind


def heldout(binary, seed=23):
    """The labelled set written apart from the rules (benchlib/secret_cases.py)."""
    from benchlib import secret_cases
    rnd = random.Random(seed)
    each = lambda texts: _each(binary, texts)
    return _caught(secret_cases.positives(rnd), each), _changed(secret_cases.negatives(rnd), each)


# gitleaks rules that recognise an identifier or a publishable key, not a secret: kept on
# purpose (see the README).
IDENTIFIER_RULES = ("client-id", "access-id", "user-api-id", "public-key", "pub-api-key", "pub-key")
# Rules that name files (no regex) or whose pattern is a whole file format.
SKIP_RULES = ("pkcs12-file", "kubernetes-secret-yaml")


def gitleaks_generated(binary, path, per_rule=3, seed=31):
    """Per gitleaks rule [caught, total] on secrets generated from gitleaks' own patterns.

    A rule whose secret carries its own shape (the secret holds one of the rule's keywords, as
    `ghp_...` does) is tested with the generated match in a sentence. A rule that only knows a
    secret by the name beside it (`adobe... = <32 hex>`) is tested with the generated secret
    assigned to a name of that provider, in the syntaxes people paste."""
    import tomllib
    from benchlib import regexgen
    rnd = random.Random(seed)
    rules = tomllib.load(open(path, "rb"))["rules"]
    cases = []
    for r in rules:
        rid = r["id"]
        if "regex" not in r or rid in SKIP_RULES or rid.endswith(IDENTIFIER_RULES):
            continue
        keywords = [k.lower() for k in r.get("keywords", [])]
        word = (keywords[0] if keywords else rid.split("-")[0]).strip("_-.:= ")
        for _ in range(per_rule):
            for _attempt in range(20):
                text, groups = regexgen.generate(r["regex"], rnd)
                g = r.get("secretGroup", 1 if 1 in groups else 0)
                s, e = groups.get(g, (0, len(text)))
                secret = text[s:e]
                if len(secret) >= 8 and "\n" not in secret:
                    break
            else:
                continue
            if any(k in secret.lower() for k in keywords) or not keywords:
                context = rnd.choice(["use {} for the staging deploy", "{}", "the key is {} (rotate it)"])
                cases.append((rid, context.format(secret), [secret]))
            else:
                name = word.replace(".", "_").replace("-", "_")
                context = rnd.choice([
                    f'{name}_api_key = "{{}}"', f"export {name.upper()}_TOKEN={{}}",
                    f"{name}Secret: '{{}}'", f'"{name}_key": "{{}}"', f"{name.upper()}_API_TOKEN: {{}}",
                ])
                cases.append((rid, context.format(secret), [secret]))
    return _caught(cases, lambda texts: _each(binary, texts))


def ordinary_text(binary, root):
    """Lines changed in real coding text with no secrets: source files of well-known crates this
    project builds with, lockfiles, this repository's history as diffs and logs (paths that hold
    test secrets left out), system logs and cargo's output. Returns {source: [changed, lines]}."""
    import glob
    sources = {}
    def read_all(pattern):
        return "".join(open(f, errors="replace").read() for f in sorted(glob.glob(pattern, recursive=True)))
    sources["every Rust source file of the crates in ~/.cargo/registry"] = read_all(os.path.expanduser("~/.cargo/registry/src/*/**/*.rs"))
    sources["the Python standard library"] = read_all("/usr/lib/python3*/**/*.py")
    lock = [os.path.join(root, "Cargo.lock")] + glob.glob(os.path.expanduser("~/.cache/aletheia-test/npm/package-lock.json"))
    sources["lockfiles (Cargo.lock, package-lock.json)"] = "".join(open(f, errors="replace").read() for f in lock if os.path.exists(f))
    keep_out = [":!src/redact", ":!tests", ":!fuzz", ":!scripts/benchlib", ":!docs", ":!fixtures"]
    git = lambda *a: subprocess.run(["git", "-C", root, *a], capture_output=True, text=True, errors="replace").stdout
    sources["git log -p (diffs)"] = git("log", "-p", "-n", "150", "--", ".", *keep_out)
    sources["git log --stat, git blame"] = git("log", "--stat", "-n", "300") + git("blame", "src/store/mod.rs")
    logs = [f for f in ("/var/log/dpkg.log", "/var/log/apt/history.log", "/var/log/apt/term.log", "/var/log/alternatives.log") if os.access(f, os.R_OK)]
    sources["system logs (dpkg, apt)"] = "".join(open(f, errors="replace").read() for f in logs)
    tree = subprocess.run(["cargo", "tree", "--offline"], cwd=root, capture_output=True, text=True).stdout
    sources["cargo tree"] = tree
    out = {}
    for name, text in sources.items():
        lines = [l for l in text.split("\n") if l.strip()]
        red = run_redact(binary, "\n".join(lines)).split("\n")
        changed = sum(a != b for a, b in zip(lines, red)) if len(red) == len(lines) else len(lines)
        out[name] = [changed, len(lines)]
    return out
