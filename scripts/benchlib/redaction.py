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
        ("azure-storage*", lambda: "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=" + base64.b64encode(os.urandom(64)).decode()),
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
    rnd = random.Random(seed)
    pos, neg = positives(rnd), negatives(rnd)
    out = run_redact(binary, SEP.join(text for _, _, text in pos)).split(SEP)
    assert len(out) == len(pos)
    by_kind = {}
    for (kind, secret, _), red in zip(pos, out):
        c = by_kind.setdefault(kind, [0, 0])
        c[1] += 1
        c[0] += secret not in red
    out = run_redact(binary, SEP.join(text for _, text in neg)).split(SEP)
    fp = {}
    for (kind, text), red in zip(neg, out):
        c = fp.setdefault(kind, [0, 0])
        c[1] += 1
        c[0] += red != text
    return by_kind, fp


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
