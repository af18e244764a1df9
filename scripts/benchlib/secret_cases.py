"""A labelled set of secrets and look-alikes, written apart from the redaction rules.

Why this exists: the redaction benchmark needs examples that were not shaped by the rules they
measure. Every case here was written from the public formats of each credential (prefixes,
lengths, alphabets, as the providers document them) and from how people actually paste them
(prose, shell commands, .env, YAML, JSON, TOML/INI, XML, code literals, flags, log lines) --
without reading the tool's rules and without running the tool on the examples. So recall
(`positives`: every listed secret substring must be gone after redaction) and false positives
(`negatives`: the text must come back unchanged) are measured honestly.

Values are generated from a `random.Random`, so a seed gives the same set every time while no
value is hand-picked. Standard library only.
"""
from __future__ import annotations

import base64
import json
import random
import re
import string
import uuid
from typing import Callable

Case = tuple[str, str, list[str]]
UP, LO, DIG = string.ascii_uppercase, string.ascii_lowercase, string.digits
HEX, HEXU = "0123456789abcdef", "0123456789ABCDEF"
ALNUM = string.ascii_letters + DIG
LOWALNUM, UPALNUM = LO + DIG, UP + DIG
B64, B64URL = ALNUM + "+/", ALNUM + "-_"
CRYPT64 = "./" + DIG + UP + LO  # the alphabet of crypt(3) hashes
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

USERS = ["admin", "deploy", "jenkins", "svc_backup", "alice", "bob.smith", "ci-bot", "root", "dbuser"]
HOSTS = ["db.internal.example.com", "10.0.3.17", "prod-db-01", "mq.acme.io", "cache.svc.local",
         "api.example.org", "192.168.1.50", "sql01.corp.acme.com"]
DOMAINS = ["CORP.ACME.COM", "EXAMPLE.LOCAL", "AD.CONTOSO.COM"]
WORDS = ["Summer", "Winter", "Dragon", "Monkey", "Falcon", "Pepper", "Tiger", "Orange", "Rocket",
         "Sunshine", "Shadow", "Matrix", "Phoenix", "Coffee", "Banana"]


def rs(rnd: random.Random, alphabet: str, n: int) -> str:
    return "".join(rnd.choice(alphabet) for _ in range(n))


def rbytes(rnd: random.Random, n: int) -> bytes:
    return bytes(rnd.getrandbits(8) for _ in range(n))


def b64(rnd: random.Random, n: int, url: bool = False, pad: bool = True) -> str:
    raw = rbytes(rnd, n)
    s = (base64.urlsafe_b64encode if url else base64.b64encode)(raw).decode()
    return s if pad else s.rstrip("=")


def b64json(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def ruuid(rnd: random.Random) -> str:
    return str(uuid.UUID(int=rnd.getrandbits(128), version=4))


def password(rnd: random.Random, url_safe: bool = False) -> str:
    """A password as people choose them: word+digits+symbol, or a generated random string."""
    sym = "-_." if url_safe else "!#%*_-.+"
    style = rnd.randrange(3)
    if style == 0:
        return rnd.choice(WORDS) + str(rnd.randrange(10, 9999)) + rnd.choice(sym) + rs(rnd, ALNUM, 3)
    if style == 1:
        return rs(rnd, ALNUM + sym, rnd.randrange(14, 25))
    return rs(rnd, ALNUM, rnd.randrange(16, 33))


def G(*parts) -> Callable[[random.Random], str]:
    """A generator from parts: a literal str, (alphabet, n), (alphabet, lo, hi) or a callable."""
    def gen(rnd: random.Random) -> str:
        out = []
        for p in parts:
            if isinstance(p, str):
                out.append(p)
            elif callable(p):
                out.append(p(rnd))
            elif len(p) == 2:
                out.append(rs(rnd, p[0], p[1]))
            else:
                out.append(rs(rnd, p[0], rnd.randint(p[1], p[2])))
        return "".join(out)
    return gen


_FIELD = re.compile(r"\{(\w+)\}")


def fill(template: str, **kw: str) -> str:
    """Single-pass substitution of {name} fields; unknown fields ({{ secrets.X }}, JSON) stay."""
    return _FIELD.sub(lambda m: kw.get(m.group(1), m.group(0)), template)


def names(env: str) -> dict[str, str]:
    parts = env.lower().split("_")
    return {"env": env, "key": env.lower(), "camel": parts[0] + "".join(p.title() for p in parts[1:]),
            "pascal": "".join(p.title() for p in parts), "kebab": "-".join(parts)}


# ---------------------------------------------------------------------------------------------
# Registries. Each family appends functions; positives()/negatives() run them in order.
_POS: list[Callable[[random.Random], list[Case]]] = []
_NEG: list[Callable[[random.Random], list[tuple[str, str]]]] = []


def pos_family(fn):
    _POS.append(fn)
    return fn


def neg_family(fn):
    _NEG.append(fn)
    return fn


def positives(rnd: random.Random) -> list[tuple[str, str, list[str]]]:
    out: list[Case] = []
    for fam in _POS:
        out.extend(fam(rnd))
    return out


def negatives(rnd: random.Random) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for fam in _NEG:
        out.extend(fam(rnd))
    return out


# ---------------------------------------------------------------------------------------------
# Provider tokens: a table of (kind, env var name, generator, special contexts). Each kind gets
# its special contexts first, then random generic ones up to three. A generator returns the
# value, or (value, [secret substrings]) when only part of the value is the secret.
TOKEN_CTX = [
    "export {env}={v}",
    "{env}={v}",
    '{env}="{v}"',
    "  {key}: {v}",
    '{key}: "{v}"',
    '{"{key}": "{v}", "region": "us-east-1", "debug": false}',
    '{key} = "{v}"',
    "[default]\n{key} = {v}",
    '<add key="{env}" value="{v}" />',
    "<{camel}>{v}</{camel}>",
    '{env} = "{v}"  # TODO: move this to the vault',
    'const {camel} = "{v}";',
    '{camel} := "{v}"',
    'private static final String {env} = "{v}";',
    'options.{pascal} = "{v}";',
    'curl -sS -H "Authorization: Bearer {v}" https://api.example.com/v1/me',
    "./deploy.sh --{kebab} {v} --region eu-west-1",
    "I rotated it already but here is the old one: {v} - does it still work for you?",
    "docker run --rm -e {env}={v} ghcr.io/acme/worker:1.4.2",
    "2024-03-11 09:14:27,531 DEBUG client: configured with {key}={v}",
    'gh secret set {env} --body "{v}"',
    "env:\n  - name: {env}\n    value: \"{v}\"",
    '$env:{env} = "{v}"',
    "set {env}={v}",
    "ENV {env}={v}",
    'headers = {"Authorization": f"Bearer {v}"}',
]


def _emit(kind: str, gen, special: list[str], generic: list[str], rnd: random.Random,
          count: int = 3, **extra: str) -> list[Case]:
    count = max(count, len(special))
    pool = list(special) + rnd.sample(generic, max(0, count - len(special)))
    out = []
    for t in pool:
        got = gen(rnd)
        value, secrets = (got, [got]) if isinstance(got, str) else got
        out.append((kind, fill(t, v=value, **extra), secrets))
    return out


_TOKENS: list[tuple[str, str, Callable, list[str]]] = []


@pos_family
def _tokens(rnd: random.Random) -> list[Case]:
    out: list[Case] = []
    for kind, env, gen, special in _TOKENS:
        out.extend(_emit(kind, gen, special, TOKEN_CTX, rnd, **names(env)))
    return out


_TOKENS += [
    ("github-pat", "GITHUB_TOKEN", G("ghp_", (ALNUM, 36)),
     ["git clone https://{v}@github.com/acme/internal-tools.git",
      "git remote set-url origin https://x-access-token:{v}@github.com/acme/api.git"]),
    ("github-oauth", "GH_OAUTH_TOKEN", G("gho_", (ALNUM, 36)), []),
    ("github-app-token", "GITHUB_APP_TOKEN", G("ghs_", (ALNUM, 36)), []),
    ("github-user-token", "GH_USER_TOKEN", G("ghu_", (ALNUM, 36)), []),
    ("github-refresh-token", "GITHUB_REFRESH_TOKEN", G("ghr_", (ALNUM, 76)), []),
    ("github-fine-grained-pat", "GH_TOKEN", G("github_pat_11", (UPALNUM, 20), "_", (ALNUM, 59)),
     ["echo {v} | gh auth login --with-token"]),
    ("gitlab-pat", "GITLAB_TOKEN", G("glpat-", (B64URL, 20)),
     ['curl --header "PRIVATE-TOKEN: {v}" "https://gitlab.example.com/api/v4/projects"']),
    ("gitlab-deploy-token", "GITLAB_DEPLOY_TOKEN", G("gldt-", (B64URL, 20)), []),
    ("gitlab-runner-token", "RUNNER_TOKEN", G("glrt-", (B64URL, 20)),
     ['gitlab-runner register --url https://gitlab.com --token {v} --executor docker']),
    ("gitlab-trigger-token", "TRIGGER_TOKEN", G("glptt-", (HEX, 40)),
     ['curl -X POST --fail -F token={v} -F ref=main https://gitlab.example.com/api/v4/projects/42/trigger/pipeline']),
    ("gitlab-oauth-app-secret", "GITLAB_OAUTH_SECRET", G("gloas-", (HEX, 64)), []),
    ("gitlab-scim-token", "GITLAB_SCIM_TOKEN", G("glsoat-", (B64URL, 20)), []),
    ("gitlab-runner-registration", "REGISTRATION_TOKEN", G("GR1348941", (B64URL, 20)),
     ['sudo gitlab-runner register --non-interactive --registration-token "{v}" --url https://gitlab.com/']),
    ("slack-bot-token", "SLACK_BOT_TOKEN", G("xoxb-", (DIG, 11, 13), "-", (DIG, 12, 13), "-", (ALNUM, 24)),
     ['curl -H "Authorization: Bearer {v}" https://slack.com/api/auth.test']),
    ("slack-user-token", "SLACK_USER_TOKEN", G("xoxp-", (DIG, 11), "-", (DIG, 11), "-", (DIG, 13), "-", (HEX, 32)), []),
    ("slack-app-token", "SLACK_TOKEN", G("xoxa-2-", (DIG, 11), "-", (DIG, 12), "-", (DIG, 13), "-", (HEX, 64)), []),
    ("slack-refresh-token", "SLACK_REFRESH_TOKEN", G("xoxe-1-", (B64URL, 140)), []),
    ("slack-config-token", "SLACK_CONFIG_TOKEN", G("xoxe.xoxp-1-", (B64URL, 150)), []),
    ("slack-app-level-token", "SLACK_APP_TOKEN", G("xapp-1-A", (UPALNUM, 10), "-", (DIG, 13), "-", (HEX, 64)),
     ["app = App(token=bot_token)\nhandler = SocketModeHandler(app, \"{v}\")"]),
    ("stripe-secret-key", "STRIPE_SECRET_KEY", G("sk_live_51", (ALNUM, 97)),
     ["curl https://api.stripe.com/v1/charges -u {v}:"]),
    ("stripe-restricted-key", "STRIPE_RESTRICTED_KEY", G("rk_live_", (ALNUM, 24)), []),
    ("stripe-webhook-secret", "STRIPE_WEBHOOK_SECRET", G("whsec_", (ALNUM, 32)),
     ["stripe listen --forward-to localhost:4242/webhook\n> Ready! Your webhook signing secret is {v} (^C to quit)"]),
    ("openai-project-key", "OPENAI_API_KEY", G("sk-proj-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)),
     ['client = OpenAI(api_key="{v}")']),
    ("openai-service-account-key", "OPENAI_API_KEY", G("sk-svcacct-", (B64URL, 74), "T3BlbkFJ", (B64URL, 74)), []),
    ("openai-legacy-key", "OPENAI_KEY", G("sk-", (ALNUM, 20), "T3BlbkFJ", (ALNUM, 20)), []),
    ("anthropic-api-key", "ANTHROPIC_API_KEY", G("sk-ant-api03-", (B64URL, 93), "AA"),
     ['client = anthropic.Anthropic(api_key="{v}")',
      'curl https://api.anthropic.com/v1/messages -H "x-api-key: {v}" -H "anthropic-version: 2023-06-01"']),
    ("anthropic-admin-key", "ANTHROPIC_ADMIN_KEY", G("sk-ant-admin01-", (B64URL, 93), "AA"), []),
    ("google-api-key", "GOOGLE_API_KEY", G("AIza", (B64URL, 35)),
     ["https://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={v}",
      '<meta-data android:name="com.google.android.geo.API_KEY" android:value="{v}"/>']),
    ("google-oauth-client-secret", "GOOGLE_CLIENT_SECRET", G("GOCSPX-", (B64URL, 28)),
     ['{"web":{"client_id":"81234567890-abc123def456.apps.googleusercontent.com","client_secret":"{v}"}}']),
    ("google-oauth-access-token", "GOOGLE_ACCESS_TOKEN", G("ya29.a0", (B64URL, 150)), []),
    ("google-oauth-refresh-token", "GOOGLE_REFRESH_TOKEN", G("1//0", (B64URL, 99)), []),
    ("azure-ad-client-secret", "AZURE_CLIENT_SECRET", G((ALNUM, 3), (DIG, 1), "Q~", (ALNUM + "_~.-", 34)),
     ["az login --service-principal -u 8f3c2a1e-4b6d-4e8f-9a0b-1c2d3e4f5a6b -p {v} --tenant contoso.onmicrosoft.com"]),
]


def inner(prefix: str, alphabet: str, n: int, suffix: str = ""):
    """A value whose secret part is only the random middle (e.g. 'oauth:' + token)."""
    def gen(rnd: random.Random):
        core = rs(rnd, alphabet, n)
        return prefix + core + suffix, [core]
    return gen


def vault_unseal(rnd: random.Random) -> str:
    return b64(rnd, 33)


_TOKENS += [
    ("dockerhub-pat", "DOCKERHUB_TOKEN", G("dckr_pat_", (B64URL, 27)),
     ['echo "{v}" | docker login -u acmebot --password-stdin']),
    ("nuget-api-key", "NUGET_API_KEY", G("oy2", (LOWALNUM, 43)),
     ["dotnet nuget push bin/Release/Acme.Core.1.2.0.nupkg --api-key {v} --source https://api.nuget.org/v3/index.json"]),
    ("doppler-personal-token", "DOPPLER_TOKEN", G("dp.pt.", (ALNUM, 43)), []),
    ("doppler-service-token", "DOPPLER_TOKEN", G("dp.st.", lambda r: r.choice(["prd", "dev", "stg"]), ".", (ALNUM, 40)),
     ["doppler run --token {v} -- npm start"]),
    ("doppler-service-account", "DOPPLER_TOKEN", G("dp.sa.", (ALNUM, 43)), []),
    ("doppler-cli-token", "DOPPLER_CLI_TOKEN", G("dp.ct.", (ALNUM, 43)), []),
    ("doppler-scim-token", "DOPPLER_SCIM_TOKEN", G("dp.scim.", (ALNUM, 43)), []),
    ("doppler-audit-token", "DOPPLER_AUDIT_TOKEN", G("dp.audit.", (ALNUM, 43)), []),
    ("newrelic-user-key", "NEW_RELIC_API_KEY", G("NRAK-", (UPALNUM, 27)),
     ['curl https://api.newrelic.com/graphql -H "API-Key: {v}" -d \'{"query":"{ actor { user { name } } }"}\'']),
    ("newrelic-insert-key", "NEW_RELIC_INSERT_KEY", G("NRII-", (B64URL, 32)), []),
    ("newrelic-browser-key", "NEW_RELIC_BROWSER_KEY", G("NRJS-", (HEX, 19)), []),
    ("newrelic-license-key", "NEW_RELIC_LICENSE_KEY", G((HEX, 36), "NRAL"),
     ["newrelic:\n  license_key: {v}\n  app_name: checkout-service"]),
    ("twitch-oauth-token", "TWITCH_OAUTH_TOKEN", inner("oauth:", LOWALNUM, 30),
     ["PASS {v}\nNICK acme_bot\nJOIN #acme"]),
    ("twitch-client-secret", "TWITCH_CLIENT_SECRET", G((LOWALNUM, 30)),
     ["curl -X POST 'https://id.twitch.tv/oauth2/token' -d 'client_id=gp762nuuoqcoxypju8c569th9wz7q5&client_secret={v}&grant_type=client_credentials'"]),
    ("adafruit-io-key", "ADAFRUIT_IO_KEY", G("aio_", (ALNUM, 28)),
     ['aio = Client("acme_iot", "{v}")']),
    ("sourcegraph-token", "SRC_ACCESS_TOKEN", G("sgp_", (HEX, 16), "_", (HEX, 40)),
     ['curl -H "Authorization: token {v}" -d \'{"query":"query { currentUser { username } }"}\' https://sourcegraph.com/.api/graphql']),
    ("sourcegraph-local-token", "SRC_ACCESS_TOKEN", G("sgp_local_", (HEX, 40)), []),
    ("sonarqube-user-token", "SONAR_TOKEN", G("squ_", (HEX, 40)),
     ["mvn clean verify sonar:sonar -Dsonar.projectKey=acme-api -Dsonar.token={v}"]),
    ("sonarqube-project-token", "SONAR_TOKEN", G("sqp_", (HEX, 40)),
     ["sonar-scanner -Dsonar.host.url=https://sonar.acme.io -Dsonar.login={v}"]),
    ("sonarqube-global-token", "SONAR_TOKEN", G("sqa_", (HEX, 40)), []),
    ("tavily-api-key", "TAVILY_API_KEY", G("tvly-", (ALNUM, 32)), ['client = TavilyClient(api_key="{v}")']),
    ("tavily-dev-key", "TAVILY_API_KEY", G("tvly-dev-", (ALNUM, 32)), []),
    ("okta-api-token", "OKTA_API_TOKEN", G("00", (B64URL, 40)),
     ['curl -H "Accept: application/json" -H "Authorization: SSWS {v}" "https://dev-4812345.okta.com/api/v1/users?limit=25"',
      "Authorization: SSWS {v}"]),
    ("salesforce-access-token", "SF_ACCESS_TOKEN", G("00D", (ALNUM, 12), "!", (ALNUM + ".", 96)),
     ['curl https://acme.my.salesforce.com/services/data/v59.0/sobjects/Account -H "Authorization: Bearer {v}"']),
    ("vault-service-token", "VAULT_TOKEN", G("hvs.CAESI", (B64URL, 86)),
     ["vault login {v}", "VAULT_TOKEN={v} vault kv get -field=password secret/app/db"]),
    ("vault-batch-token", "VAULT_TOKEN", G("hvb.AAAAAQ", (B64URL, 128)), []),
    ("vault-recovery-token", "VAULT_RECOVERY_TOKEN", G("hvr.", (B64URL, 22)), []),
    ("vault-legacy-token", "VAULT_TOKEN", G("s.", (ALNUM, 24)), ["Initial Root Token: {v}"]),
    ("vault-unseal-key", "VAULT_UNSEAL_KEY", vault_unseal,
     ["Unseal Key 1: {v}", "vault operator unseal {v}"]),
    ("terraform-cloud-token", "TFE_TOKEN", G((ALNUM, 14), ".atlasv1.", (ALNUM, 67)),
     ['credentials "app.terraform.io" {\n  token = "{v}"\n}',
      '{"credentials": {"app.terraform.io": {"token": "{v}"}}}']),
    ("k8s-bootstrap-token", "KUBEADM_TOKEN", G((LOWALNUM, 6), ".", (LOWALNUM, 16)),
     ["kubeadm join 10.0.0.10:6443 --token {v} \\\n    --discovery-token-ca-cert-hash sha256:8cb2de97839780a412b93877f8507ad6c94f73add17d5d7058e91741c9d5ec78",
      "$ kubeadm token create --ttl 2h\n{v}"]),
    ("databricks-token", "DATABRICKS_TOKEN", G("dapi", (HEX, 32)),
     ["[DEFAULT]\nhost = https://adb-1234567890123456.7.azuredatabricks.net\ntoken = {v}"]),
    ("grafana-cloud-token", "GRAFANA_CLOUD_TOKEN",
     lambda r: "glc_" + b64json({"o": str(r.randrange(10**5, 10**6)), "n": "stack-" + rs(r, DIG, 6) + "-hm-read",
                                 "k": rs(r, ALNUM, 32), "m": {"r": "prod-us-east-0"}}), []),
    ("grafana-service-account", "GRAFANA_SA_TOKEN", G("glsa_", (ALNUM, 32), "_", (HEX, 8)),
     ['curl -H "Authorization: Bearer {v}" https://grafana.acme.io/api/dashboards/home']),
    ("grafana-api-key", "GRAFANA_API_KEY",
     lambda r: b64json({"k": rs(r, ALNUM, 32), "n": "ci-publisher", "id": r.randrange(1, 99)}), []),
    ("crates-io-token", "CARGO_REGISTRY_TOKEN", G("cio", (ALNUM, 32)),
     ["cargo login {v}", '[registry]\ntoken = "{v}"']),
    ("rubygems-api-key", "GEM_HOST_API_KEY", G("rubygems_", (HEX, 48)), ["---\n:rubygems_api_key: {v}"]),
    ("square-access-token", "SQUARE_ACCESS_TOKEN", G("sq0atp-", (B64URL, 22)), []),
    ("square-oauth-secret", "SQUARE_APP_SECRET", G("sq0csp-", (B64URL, 43)), []),
    ("square-token", "SQUARE_ACCESS_TOKEN", G("EAAA", (B64URL, 60)),
     ['curl https://connect.squareup.com/v2/locations -H "Square-Version: 2024-01-18" -H "Authorization: Bearer {v}"']),
    ("mailchimp-api-key", "MAILCHIMP_API_KEY", G((HEX, 32), "-us", (DIG, 1, 2)),
     ["curl --request GET --url 'https://us12.api.mailchimp.com/3.0/' --user 'anystring:{v}'"]),
    ("mailgun-api-key", "MAILGUN_API_KEY", G("key-", (HEX, 32)),
     ['curl -s --user "api:{v}" https://api.mailgun.net/v3/mg.acme.io/messages -F from=noreply@acme.io -F to=ops@acme.io']),
    ("mailgun-private-key", "MAILGUN_API_KEY", G((HEX, 32), "-", (HEX, 8), "-", (HEX, 8)), []),
    ("sendgrid-api-key", "SENDGRID_API_KEY", G("SG.", (B64URL, 22), ".", (B64URL, 43)),
     ["sg = sendgrid.SendGridAPIClient('{v}')"]),
    ("twilio-api-key", "TWILIO_API_KEY", G("SK", (HEX, 32)), []),
    ("twilio-auth-token", "TWILIO_AUTH_TOKEN", G((HEX, 32)),
     ["curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC3f4e2b1a9c8d7e6f5a4b3c2d1e0f9a8b/Messages.json "
      "--data-urlencode 'Body=hi' -u AC3f4e2b1a9c8d7e6f5a4b3c2d1e0f9a8b:{v}",
      'client = Client("AC3f4e2b1a9c8d7e6f5a4b3c2d1e0f9a8b", "{v}")']),
]


def discord_token(rnd: random.Random) -> str:
    user_id = str(rnd.randrange(10**17, 2 * 10**18))
    head = base64.b64encode(user_id.encode()).decode().rstrip("=")
    return f"{head}.{rs(rnd, B64URL, 6)}.{rs(rnd, B64URL, 38)}"


def url_tail(prefix: str, alphabet: str, n: int):
    """A webhook URL; the secret is its last path segment."""
    def gen(rnd: random.Random):
        core = rs(rnd, alphabet, n)
        return fill(prefix, d=rs(rnd, DIG, 18), t=rs(rnd, UPALNUM, 9), b=rs(rnd, UPALNUM, 11)) + core, [core]
    return gen


def jwt(rnd: random.Random) -> str:
    head = b64json({"alg": rnd.choice(["HS256", "RS256"]), "typ": "JWT"})
    body = b64json({"sub": ruuid(rnd), "name": rnd.choice(USERS), "role": "authenticated",
                    "iat": 1716000000 + rnd.randrange(10**6), "exp": 1719000000 + rnd.randrange(10**6)})
    return f"{head}.{body}.{rs(rnd, B64URL, 43)}"


def sentry_org(rnd: random.Random) -> str:
    blob = b64json({"iat": 1712000000 + rnd.randrange(10**6), "url": "https://sentry.io",
                    "region_url": "https://us.sentry.io", "org": rnd.choice(["acme", "initech", "globex"])})
    return f"sntrys_{blob}_{rs(rnd, B64, 43)}"


def mapbox_secret(rnd: random.Random) -> str:
    blob = b64json({"u": rnd.choice(["acme", "jdoe", "mapteam"]), "a": "cl" + rs(rnd, LOWALNUM, 23)})
    return f"sk.{blob}.{rs(rnd, B64URL, 22)}"


def bech32_upper(rnd: random.Random) -> str:
    return "AGE-SECRET-KEY-1" + rs(rnd, BECH32, 58).upper()


_TOKENS += [
    ("telegram-bot-token", "TELEGRAM_BOT_TOKEN", G((DIG, 9, 10), ":AA", (B64URL, 33)),
     ["https://api.telegram.org/bot{v}/sendMessage?chat_id=-1001234567890&text=deploy%20ok",
      'curl -s "https://api.telegram.org/bot{v}/getUpdates" | jq .',
      'bot = telebot.TeleBot("{v}")',
      "application = ApplicationBuilder().token('{v}').build()",
      "Hi, my bot stopped answering, this is the token from BotFather: {v}"]),
    ("discord-bot-token", "DISCORD_TOKEN", discord_token,
     ['client.run("{v}")', "client.login('{v}');", 'curl -H "Authorization: Bot {v}" https://discord.com/api/v10/users/@me']),
    ("discord-webhook", "DISCORD_WEBHOOK_URL", url_tail("https://discord.com/api/webhooks/{d}/", B64URL, 68),
     ['curl -H "Content-Type: application/json" -d \'{"content":"build failed"}\' {v}']),
    ("slack-webhook", "SLACK_WEBHOOK_URL", url_tail("https://hooks.slack.com/services/T{t}/B{b}/", ALNUM, 24),
     ["curl -X POST -H 'Content-type: application/json' --data '{\"text\":\"deploy done\"}' {v}"]),
    ("npm-token", "NPM_TOKEN", G("npm_", (ALNUM, 36)),
     ["//registry.npmjs.org/:_authToken={v}", "npm config set //registry.npmjs.org/:_authToken {v}"]),
    ("pypi-token", "PYPI_TOKEN", G("pypi-AgEIcHlwaS5vcmc", (B64URL, 160)),
     ["[pypi]\n  username = __token__\n  password = {v}", "twine upload -u __token__ -p {v} dist/*"]),
    ("huggingface-token", "HF_TOKEN", G("hf_", (UP + LO, 34)),
     ["huggingface-cli login --token {v}", 'from huggingface_hub import login\nlogin(token="{v}")']),
    ("shopify-access-token", "SHOPIFY_ACCESS_TOKEN", G("shpat_", (HEX, 32)),
     ['curl -H "X-Shopify-Access-Token: {v}" https://acme-store.myshopify.com/admin/api/2024-01/shop.json']),
    ("shopify-shared-secret", "SHOPIFY_API_SECRET", G("shpss_", (HEX, 32)), []),
    ("shopify-custom-app-token", "SHOPIFY_TOKEN", G("shpca_", (HEX, 32)), []),
    ("digitalocean-pat", "DIGITALOCEAN_TOKEN", G("dop_v1_", (HEX, 64)), ["doctl auth init --access-token {v}"]),
    ("digitalocean-oauth", "DO_OAUTH_TOKEN", G("doo_v1_", (HEX, 64)), []),
    ("heroku-api-key", "HEROKU_API_KEY", ruuid,
     ["machine api.heroku.com\n  login ops@acme.io\n  password {v}"]),
    ("heroku-token", "HEROKU_API_KEY", G("HRKU-AA", (B64URL, 58)), []),
    ("linear-api-key", "LINEAR_API_KEY", G("lin_api_", (ALNUM, 40)),
     ["curl -X POST https://api.linear.app/graphql -H 'Authorization: {v}' -d '{\"query\":\"{ viewer { id } }\"}'"]),
    ("postman-api-key", "POSTMAN_API_KEY", G("PMAK-", (HEX, 24), "-", (HEX, 34)),
     ['curl https://api.getpostman.com/collections -H "X-Api-Key: {v}"']),
    ("atlassian-api-token", "JIRA_API_TOKEN", G("ATATT3xFfGF0", (B64URL, 170), "=", (HEXU, 8)),
     ["curl -u jane@acme.com:{v} https://acme.atlassian.net/rest/api/3/myself"]),
    ("age-secret-key", "SOPS_AGE_KEY", bech32_upper,
     ["# created: 2024-01-15T10:22:31Z\n# public key: age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n{v}"]),
    ("jwt", "ACCESS_TOKEN", jwt,
     ["Authorization: Bearer {v}", "GET /api/v2/orders HTTP/1.1\nHost: api.acme.io\nAuthorization: Bearer {v}"]),
    ("sentry-org-token", "SENTRY_AUTH_TOKEN", sentry_org, ["sentry-cli --auth-token {v} releases new 1.4.2"]),
    ("sentry-user-token", "SENTRY_AUTH_TOKEN", G("sntryu_", (HEX, 64)), []),
    ("planetscale-token", "PLANETSCALE_SERVICE_TOKEN", G("pscale_tkn_", (B64URL, 43)), []),
    ("planetscale-password", "DATABASE_PASSWORD", G("pscale_pw_", (B64URL, 43)),
     ["DATABASE_URL=mysql://k3j2h1g0f9e8:{v}@aws.connect.psdb.cloud/shop?sslaccept=strict"]),
    ("pulumi-token", "PULUMI_ACCESS_TOKEN", G("pul-", (HEX, 40)), []),
    ("flyio-token", "FLY_API_TOKEN", G("fo1_", (B64URL, 43)), ["fly deploy --access-token {v}"]),
    ("supabase-token", "SUPABASE_ACCESS_TOKEN", G("sbp_", (HEX, 40)), ["supabase login --token {v}"]),
    ("notion-token", "NOTION_TOKEN", G("secret_", (ALNUM, 43)),
     ['notion = Client(auth="{v}")']),
    ("notion-ntn-token", "NOTION_API_KEY", G("ntn_", (DIG, 11), (ALNUM, 35)), []),
    ("airtable-pat", "AIRTABLE_API_KEY", G("pat", (ALNUM, 14), ".", (HEX, 64)), []),
    ("figma-token", "FIGMA_TOKEN", G("figd_", (B64URL, 40)),
     ['curl -H "X-Figma-Token: {v}" https://api.figma.com/v1/files/abc123XYZ']),
    ("replicate-token", "REPLICATE_API_TOKEN", G("r8_", (ALNUM, 37)), []),
    ("groq-api-key", "GROQ_API_KEY", G("gsk_", (ALNUM, 52)), ['client = Groq(api_key="{v}")']),
    ("perplexity-api-key", "PERPLEXITY_API_KEY", G("pplx-", (ALNUM, 48)), []),
    ("xai-api-key", "XAI_API_KEY", G("xai-", (ALNUM, 80)), []),
    ("mapbox-secret-token", "MAPBOX_DOWNLOADS_TOKEN", mapbox_secret, []),
    ("hubspot-pat", "HUBSPOT_ACCESS_TOKEN", lambda r: r.choice(["pat-na1-", "pat-eu1-"]) + ruuid(r), []),
    ("dynatrace-token", "DT_API_TOKEN", G("dt0c01.", (UPALNUM, 24), ".", (UPALNUM, 64)),
     ['curl -H "Authorization: Api-Token {v}" https://abc12345.live.dynatrace.com/api/v2/metrics']),
    ("buildkite-token", "BUILDKITE_API_TOKEN", G("bkua_", (HEX, 40)), []),
    ("datadog-api-key", "DD_API_KEY", G((HEX, 32)),
     ['DD_API_KEY={v} DD_SITE="datadoghq.eu" bash -c "$(curl -L https://install.datadoghq.com/scripts/install_script_agent7.sh)"',
      'curl "https://api.datadoghq.com/api/v1/validate" -H "DD-API-KEY: {v}"']),
    ("datadog-app-key", "DD_APP_KEY", G((HEX, 40)),
     ['curl "https://api.datadoghq.com/api/v2/users" -H "DD-API-KEY: ${DD_API_KEY}" -H "DD-APPLICATION-KEY: {v}"']),
]


# ---------------------------------------------------------------------------------------------
# AWS and WireGuard: pairs of values in one text, some of them not secret (region, public key).
def aws_id(rnd: random.Random, prefix: str = "AKIA") -> str:
    return prefix + rs(rnd, UP + "234567", 16)


AWS_CTX = [
    "[default]\naws_access_key_id = {id}\naws_secret_access_key = {sk}\nregion = us-east-1",
    "export AWS_ACCESS_KEY_ID={id}\nexport AWS_SECRET_ACCESS_KEY={sk}",
    'provider "aws" {\n  region     = "us-west-2"\n  access_key = "{id}"\n  secret_key = "{sk}"\n}',
    's3 = boto3.client("s3", aws_access_key_id="{id}", aws_secret_access_key="{sk}")',
    '{\n    "AccessKey": {\n        "UserName": "ci-deployer",\n        "AccessKeyId": "{id}",\n'
    '        "Status": "Active",\n        "SecretAccessKey": "{sk}"\n    }\n}',
    "docker run --rm -e AWS_ACCESS_KEY_ID={id} -e AWS_SECRET_ACCESS_KEY={sk} amazon/aws-cli s3 ls",
]
AWS_SECRET_CTX = [
    "aws configure set aws_secret_access_key {sk}",
    "  secret_access_key: {sk}",
    "The key id is in the ticket; the secret access key is {sk} (please don't share).",
    'AmazonS3 s3 = new AmazonS3Client(new BasicAWSCredentials(accessKeyId, "{sk}"));',
]
AWS_SESSION_CTX = [
    "[temp]\naws_access_key_id = {id}\naws_secret_access_key = {sk}\naws_session_token = {st}",
    '{"Credentials": {"AccessKeyId": "{id}", "SecretAccessKey": "{sk}", "SessionToken": "{st}", '
    '"Expiration": "2024-06-01T12:00:00Z"}}',
]
WG_CTX = [
    "[Interface]\nPrivateKey = {pk}\nAddress = 10.8.0.2/32\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = {pub}\n"
    "PresharedKey = {psk}\nEndpoint = vpn.acme.io:51820\nAllowedIPs = 0.0.0.0/0",
    "wg set wg0 private-key <(echo {pk}) peer {pub} preshared-key <(echo {psk}) endpoint 203.0.113.5:51820",
    "  wireguard:\n    private_key: \"{pk}\"\n    peer_public_key: \"{pub}\"\n    preshared_key: \"{psk}\"",
]


@pos_family
def _aws_wg(rnd: random.Random) -> list[Case]:
    out: list[Case] = []
    for t in rnd.sample(AWS_CTX, 4):
        i, sk = aws_id(rnd), rs(rnd, B64, 40)
        out.append(("aws-access-key-pair", fill(t, id=i, sk=sk), [i, sk]))
    for t in rnd.sample(AWS_SECRET_CTX, 3):
        sk = rs(rnd, B64, 40)
        out.append(("aws-secret-key", fill(t, sk=sk), [sk]))
    for t in AWS_SESSION_CTX:
        i, sk = aws_id(rnd, "ASIA"), rs(rnd, B64, 40)
        st = "IQoJb3JpZ2luX2VjE" + rs(rnd, B64, 320)
        out.append(("aws-session-credentials", fill(t, id=i, sk=sk, st=st), [sk, st]))
    for t in WG_CTX:
        pk, pub, psk = b64(rnd, 32), b64(rnd, 32), b64(rnd, 32)
        out.append(("wireguard-keys", fill(t, pk=pk, pub=pub, psk=psk), [pk, psk]))
    return out


# ---------------------------------------------------------------------------------------------
# Framework secrets and secrets under names with no "password/secret/token/api_key" in them.
DJANGO_ALPHABET = LO + DIG + "!@#%^&*(-_=+)"

_NAMED: list[tuple[str, Callable, list[str]]] = [
    ("django-secret-key", lambda r: r.choice(["django-insecure-", ""]) + rs(r, DJANGO_ALPHABET, 50),
     ["SECRET_KEY = '{v}'", 'DJANGO_SECRET_KEY="{v}"', "  DJANGO_SECRET_KEY: '{v}'"]),
    ("rails-secret-key-base", G((HEX, 128)),
     ["production:\n  secret_key_base: {v}", "SECRET_KEY_BASE={v}", 'config.secret_key_base = "{v}"']),
    ("flask-secret-key", G((HEX, 32, 64)),
     ['app.config["SECRET_KEY"] = "{v}"', "app.secret_key = '{v}'", "FLASK_SECRET_KEY={v}"]),
    ("jwt-secret", G((B64URL, 32, 64)),
     ["jwtsecret: {v}", "JWT_SECRET={v}", 'const token = jwt.sign(payload, "{v}", { expiresIn: "1h" });']),
    ("ado-pat", lambda r: rs(r, LO + "234567", 52) if r.random() < 0.5 else rs(r, ALNUM, 52) + "AZDO" + rs(r, ALNUM, 28),
     ['ado_pat = "{v}"', "git clone https://pat:{v}@dev.azure.com/acme/Platform/_git/infra",
      "echo {v} | az devops login --organization https://dev.azure.com/acme"]),
    ("license-key", lambda r: "-".join(rs(r, UPALNUM, 5) for _ in range(5)) if r.random() < 0.5 else rs(r, HEX, 40),
     ["license_key: {v}", '"licenseKey": "{v}",', "LICENSE_KEY={v}"]),
    ("stream-key", G("live_", (DIG, 9), "_", (ALNUM, 30)),
     ["STREAM_KEY={v}", "ffmpeg -re -i talk.mp4 -c copy -f flv rtmp://live.twitch.tv/app/{v}",
      '{"settings": {"server": "auto", "key": "{v}"}, "type": "rtmp_common"}']),
    ("encryption-key", lambda r: b64(r, 32),
     ['encryption_key = "{v}"', "ENCRYPTION_KEY={v}",
      'config :my_app, MyApp.Vault, ciphers: [default: {Cloak.Ciphers.AES.GCM, tag: "AES.GCM.V1", key: Base64.decode!("{v}")}]']),
    ("signing-key", G((HEX, 64)),
     ["signing_key: {v}", "SIGNING_KEY={v}", 'signingKey := []byte("{v}")']),
    ("master-key", G((HEX, 32)),
     ["RAILS_MASTER_KEY={v}", "$ cat config/master.key\n{v}", 'master_key = "{v}"']),
    ("meili-master-key", G((B64URL, 32, 44)),
     ["meilisearch --master-key='{v}' --env production", "MEILI_MASTER_KEY={v}"]),
    ("auth-assignment", G((ALNUM, 32, 48)),
     ['auth = "{v}"', "AUTH={v}", "requests.get(url, headers={'auth': '{v}'}, timeout=10)"]),
    ("credentials-assignment", G((B64, 40, 56)),
     ["credentials: {v}", 'CREDENTIALS="{v}"', '"credentials": "{v}",']),
    ("eth-private-key", G("0x", (HEX, 64)),
     ["PRIVATE_KEY={v}", "const wallet = new ethers.Wallet('{v}', provider);", "  accounts: ['{v}'],"]),
    ("hmac-key", G((HEX, 64)), ['HMAC_KEY = b"{v}"', "hmac_key: {v}"]),
    ("passphrase", lambda r: "-".join(r.choice(WORDS).lower() for _ in range(4)) + str(r.randrange(10, 99)),
     ["passphrase = {v}", 'SIGNING_PASSPHRASE="{v}"', "gpg --batch --passphrase '{v}' --decrypt backup.tar.gz.gpg"]),
    ("access-key", G((UPALNUM, 20)),
     ["access_key: {v}", 'minio_access_key = "{v}"']),
    ("private-key-hex", G((HEX, 64)),
     ["NOSTR_PRIVKEY={v}", 'node_key = "{v}"']),
    ("password-assignment", lambda r: password(r),
     ["DB_PASSWORD={v}", "  password: '{v}'", '{"username": "admin", "password": "{v}"}',
      'spring.datasource.password={v}', 'db_password = "{v}"']),
    ("password-prose", lambda r: password(r),
     ["the wifi password is {v} btw", "login is admin / {v} until we set up SSO",
      "Hey, can you try with user deploy and password {v}? it worked for me this morning"]),
    ("passwd-pwd-names", lambda r: password(r),
     ["PGPASSWORD={v} psql -h db -U app", 'pwd = "{v}"', "passwd: {v}", "MYSQL_ROOT_PASSWORD={v}"]),
]


@pos_family
def _named(rnd: random.Random) -> list[Case]:
    out: list[Case] = []
    for kind, gen, templates in _NAMED:
        out.extend(_emit(kind, gen, templates, [], rnd, count=len(templates)))
    return out


# ---------------------------------------------------------------------------------------------
# Password hashes: crackable offline, so the whole hash string is the secret.
def crypt(prefix: str, salt: int, digest: int):
    return G(prefix, (CRYPT64, salt), "$", (CRYPT64, digest))


def bcrypt(variant: str):
    return lambda r: f"${variant}${r.choice([10, 11, 12, 13]):02d}$" + rs(r, CRYPT64, 53)


def argon2id(rnd: random.Random) -> str:
    m, t, p = rnd.choice([(65536, 3, 4), (19456, 2, 1), (47104, 1, 1)])
    return f"$argon2id$v=19$m={m},t={t},p={p}${b64(rnd, 16, pad=False)}${b64(rnd, 32, pad=False)}"


def krb5asrep(rnd: random.Random) -> str:
    return (f"$krb5asrep$23${rnd.choice(USERS)}@{rnd.choice(DOMAINS)}:{rs(rnd, HEX, 32)}$"
            + rs(rnd, HEX, 2 * rnd.randrange(150, 260)))


def krb5tgs(rnd: random.Random) -> str:
    dom = rnd.choice(DOMAINS)
    spn = rnd.choice(["MSSQLSvc/sql01.corp.acme.com:1433", "HTTP/intranet.example.local", "CIFS/fs02"])
    return (f"$krb5tgs$23$*svc_sql${dom}${spn}*${rs(rnd, HEX, 32)}$"
            + rs(rnd, HEX, 2 * rnd.randrange(500, 700)))


def ntlm_line(rnd: random.Random):
    nt = rs(rnd, HEX, 32)
    return f"Administrator:500:aad3b435b51404eeaad3b435b51404ee:{nt}:::", [nt]


def netntlmv2(rnd: random.Random) -> str:
    return (f"{rnd.choice(USERS)}::{rnd.choice(DOMAINS).split('.')[0]}:{rs(rnd, HEX, 16)}:"
            f"{rs(rnd, HEXU, 32)}:0101000000000000{rs(rnd, HEX, 2 * rnd.randrange(60, 120))}")


CRYPT_CTX = [
    "root:{v}:19640:0:99999:7:::",
    "{u}:{v}",
    'password_hash: "{v}"',
    "INSERT INTO users (email, password_hash) VALUES ('{u}@acme.io', '{v}');",
    "echo '{v}' > hash.txt && hashcat -a 0 hash.txt rockyou.txt",
    '{"username": "{u}", "hashed_password": "{v}"}',
    "Can anyone tell what kind of hash this is? {v}",
    "users:\n  - name: {u}\n    passwd: \"{v}\"\n    lock_passwd: false",
    "usermod -p '{v}' {u}",
    "<user name=\"{u}\" password=\"{v}\" roles=\"admin\"/>",
]
CISCO_CTX = ["username {u} privilege 15 secret {n} {v}", "enable secret {n} {v}",
             "!\nhostname core-sw1\nenable algorithm-type {alg} secret {n} {v}\n!",
             "Found this in the switch config backup: secret {n} {v}"]
KRB_CTX = ["{v}", "[*] Saved hash for {u} to hashes.txt:\n{v}", "hashcat -m {m} '{v}' /usr/share/wordlists/rockyou.txt",
           "cracked it in 4 minutes: {v}:Password123"]

_HASHES: list[tuple[str, Callable, list[str], list[str], int, dict]] = [
    ("bcrypt", bcrypt("2a"), [], CRYPT_CTX, 2, {}),
    ("bcrypt", bcrypt("2b"), [], CRYPT_CTX, 2, {}),
    ("bcrypt", bcrypt("2y"), ["htpasswd -nbB {u} s3cr3t\n{u}:{v}"], CRYPT_CTX, 2, {}),
    ("md5-crypt", crypt("$1$", 8, 22), [], CRYPT_CTX, 3, {}),
    ("apr1", crypt("$apr1$", 8, 22), ["{u}:{v}"], CRYPT_CTX, 3, {}),
    ("sha256-crypt", crypt("$5$", 16, 43), [], CRYPT_CTX, 3, {}),
    ("sha512-crypt", crypt("$6$", 16, 86), ["root:{v}:19640:0:99999:7:::"], CRYPT_CTX, 3, {}),
    ("sha512-crypt-rounds", crypt("$6$rounds=656000$", 16, 86), [], CRYPT_CTX, 3, {}),
    ("yescrypt", crypt("$y$j9T$", 22, 43), ["{u}:{v}:19800:0:99999:7:::"], CRYPT_CTX, 3, {}),
    ("phpass", G("$P$B", (CRYPT64, 30)), ["INSERT INTO wp_users (user_login, user_pass) VALUES ('{u}', '{v}');"],
     CRYPT_CTX, 3, {}),
    ("argon2id", argon2id, [], CRYPT_CTX, 3, {}),
    ("django-pbkdf2", G("pbkdf2_sha256$", lambda r: r.choice(["260000", "600000", "720000"]), "$",
                        (ALNUM, 22), "$", lambda r: b64(r, 32)),
     ["INSERT INTO auth_user (username, password) VALUES ('{u}', '{v}');"], CRYPT_CTX, 3, {}),
    ("cisco-type8", crypt("$8$", 14, 43), [], CISCO_CTX, 3, {"n": "8", "alg": "sha256"}),
    ("cisco-type9", crypt("$9$", 14, 43), [], CISCO_CTX, 3, {"n": "9", "alg": "scrypt"}),
    ("krb5asrep", krb5asrep, [], KRB_CTX, 3, {"m": "18200"}),
    ("krb5tgs", krb5tgs, [], KRB_CTX, 3, {"m": "13100"}),
    ("mysql-native-hash", G("*", (HEXU, 40)),
     ["CREATE USER 'app'@'%' IDENTIFIED WITH mysql_native_password AS '{v}';",
      "| app  | %    | {v} |"], CRYPT_CTX, 3, {}),
    ("ntlm-hash", ntlm_line, ["{v}", "[*] Dumping local SAM hashes (uid:rid:lmhash:nthash)\n{v}"], [], 2, {}),
    ("netntlmv2", netntlmv2, ["[SMB] NTLMv2-SSP Hash     : {v}", "{v}"], [], 2, {}),
    ("ldap-ssha", lambda r: "{SSHA}" + b64(r, 24),
     ["userPassword: {v}", "dn: uid={u},ou=people,dc=acme,dc=com\nuserPassword: {v}"], [], 2, {}),
]


@pos_family
def _hashes(rnd: random.Random) -> list[Case]:
    out: list[Case] = []
    for kind, gen, special, generic, n, extra in _HASHES:
        out.extend(_emit(kind, gen, special, generic, rnd, count=n, u=rnd.choice(USERS), **extra))
    return out


# ---------------------------------------------------------------------------------------------
# Credentials typed on command lines. Fields: {u} user, {p} password (the secret), {h} host.
_CMDLINE: list[tuple[str, list[str]]] = [
    ("docker-login", ["docker login -u {u} -p {p} registry.acme.io",
                      "docker login registry.gitlab.com --username {u} --password {p}",
                      'docker login --username={u} --password="{p}" acme.azurecr.io']),
    ("psexec", ["psexec \\\\{h} -u CORP\\{u} -p {p} cmd.exe",
                'PsExec64.exe \\\\10.0.0.5 -u Administrator -p "{p}" -s -i powershell.exe',
                "psexec.py CORP/{u}:'{p}'@{h}"]),
    ("connect-viserver", ["Connect-VIServer -Server vcenter.acme.local -User administrator@vsphere.local -Password '{p}'",
                          'Connect-VIServer vc01.corp.acme.com -User {u} -Password "{p}" -Force | Out-Null']),
    ("curl-basic-auth", ["curl -u {u}:{p} https://{h}/api/health",
                         'curl --user "{u}:{p}" -X POST https://jenkins.acme.io/job/deploy/build',
                         "curl -sk -u 'elastic:{p}' https://localhost:9200/_cluster/health?pretty"]),
    ("mysql-p", ["mysql -u root -p{p} -h {h} shop", "mysqldump -u{u} -p{p} --all-databases > dump.sql",
                 "mysql -h {h} -P 3306 -u {u} -p'{p}' -e 'SHOW DATABASES;'"]),
    ("mysql-password", ["mysql --user={u} --password={p} --host={h}",
                        "mysqladmin -u root --password='{p}' status"]),
    ("sshpass", ["sshpass -p '{p}' ssh -o StrictHostKeyChecking=no {u}@{h}",
                 "sshpass -p {p} scp backup.tar.gz {u}@{h}:/srv/backups/"]),
    ("htpasswd", ["htpasswd -b -c /etc/nginx/.htpasswd {u} {p}", "htpasswd -bB .htpasswd {u} '{p}'"]),
    ("net-use", ["net use Z: \\\\fs01\\share /user:CORP\\{u} {p}",
                 "net use \\\\{h}\\C$ {p} /user:Administrator /persistent:no"]),
    ("convertto-securestring", ['$pw = ConvertTo-SecureString "{p}" -AsPlainText -Force',
                                "$cred = New-Object System.Management.Automation.PSCredential('{u}', "
                                "(ConvertTo-SecureString '{p}' -AsPlainText -Force))"]),
    ("redis-cli-auth", ["redis-cli -h {h} -p 6379 -a {p} ping", "redis-cli -a '{p}' --no-auth-warning info memory"]),
    ("mongosh-password", ['mongosh "mongodb://{h}:27017" -u {u} -p {p} --authenticationDatabase admin',
                          "mongodump --username {u} --password '{p}' --db shop --out /backup"]),
    ("smbclient-creds", ["smbclient //fs01/share -U {u}%{p}", "crackmapexec smb 10.0.0.0/24 -u {u} -p '{p}'"]),
    ("rdp-creds", ["xfreerdp /v:{h} /u:{u} /p:{p} /cert:ignore",
                   "cmdkey /generic:TERMSRV/{h} /user:{u} /pass:{p}"]),
    ("openssl-pass", ["openssl pkcs12 -export -in cert.pem -inkey key.pem -out cert.p12 -passout pass:{p}",
                      "openssl enc -aes-256-cbc -pbkdf2 -in db.sql -out db.sql.enc -k {p}"]),
    ("sqlcmd-password", ['sqlcmd -S {h} -U sa -P "{p}" -Q "SELECT @@VERSION"',
                         "bcp dbo.Orders out orders.csv -S {h} -U {u} -P {p} -c"]),
    ("ldapsearch-bind", ['ldapsearch -x -H ldap://{h} -D "cn=admin,dc=acme,dc=com" -w {p} -b "dc=acme,dc=com"',
                         "ldapmodify -x -D cn=admin,dc=acme,dc=com -w '{p}' -f change.ldif"]),
    ("wget-password", ["wget --user={u} --password={p} https://{h}/files/report.pdf",
                       'wget --http-user={u} --http-password="{p}" https://{h}/artifacts/app.jar']),
    ("rabbitmqctl", ["rabbitmqctl add_user {u} {p}", "rabbitmqctl change_password {u} '{p}'"]),
    ("chpasswd", ['echo "{u}:{p}" | chpasswd', "echo -e '{p}\\n{p}' | passwd {u}"]),
    ("kubectl-secret-literal", ["kubectl create secret generic db-creds --from-literal=username={u} --from-literal=password={p}",
                                "kubectl create secret docker-registry regcred --docker-server=ghcr.io "
                                "--docker-username={u} --docker-password={p}"]),
    ("helm-repo-password", ["helm repo add acme https://charts.acme.io --username {u} --password {p}",
                            "helm registry login registry.acme.io -u {u} -p '{p}'"]),
    ("ansible-password", ['ansible-playbook site.yml -i inventory -e "ansible_password={p}"',
                          "ansible all -m ping -u {u} --extra-vars 'ansible_ssh_pass={p} ansible_become_pass={p}'"]),
    ("schtasks-password", ['schtasks /create /tn "Nightly Backup" /tr C:\\backup.cmd /sc daily /st 02:00 /ru CORP\\{u} /rp {p}',
                           'schtasks /create /s {h} /u CORP\\{u} /p {p} /tn Cleanup /tr C:\\tools\\cleanup.exe /sc weekly']),
    ("archive-password", ["7z a -p{p} -mhe=on backup.7z /srv/data", "zip -P {p} secrets.zip notes.txt"]),
    ("git-url-creds", ["git clone https://{u}:{p}@git.acme.io/team/platform.git",
                       "git push https://{u}:{p}@bitbucket.org/acme/app.git HEAD:main"]),
]


@pos_family
def _cmdline(rnd: random.Random) -> list[Case]:
    out: list[Case] = []
    for kind, templates in _CMDLINE:
        for t in templates:
            p = password(rnd, url_safe="@" in t)
            out.append((kind, fill(t, u=rnd.choice(USERS), p=p, h=rnd.choice(HOSTS)), [p]))
    return out


# ---------------------------------------------------------------------------------------------
# Config files, build tools, connection strings and URLs with credentials. Each kind names the
# field that is its secret: p (password), b (base64 user:pass), k (88-char account key),
# sk (44-char shared access key), sig (URL-encoded SAS signature).
def _fields(rnd: random.Random, url_safe: bool) -> dict[str, str]:
    u, p = rnd.choice(USERS), password(rnd, url_safe)
    if url_safe and rnd.random() < 0.2:
        p += "%21"  # percent-encoded '!', as people paste them into URLs
    sig = b64(rnd, 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    return {"u": u, "p": p, "h": rnd.choice(HOSTS), "b": base64.b64encode(f"{u}:{p}".encode()).decode(),
            "k": b64(rnd, 64), "sk": b64(rnd, 32), "sig": sig}


_CONFIG: list[tuple[str, str, list[str]]] = [
    ("netrc-oneline", "p", ["machine {h} login {u} password {p}",
                            "echo 'machine artifactory.acme.io login {u} password {p}' >> ~/.netrc"]),
    ("netrc-multiline", "p", ["machine {h}\n  login {u}\n  password {p}",
                              "machine api.github.com\nlogin {u}\npassword {p}\n\nmachine uploads.github.com\nlogin {u}"]),
    ("maven-settings", "p", ["<servers>\n  <server>\n    <id>nexus-releases</id>\n    <username>{u}</username>\n"
                             "    <password>{p}</password>\n  </server>\n</servers>",
                             "<server><id>github</id><username>{u}</username><password>{p}</password></server>"]),
    ("gradle-properties", "p", ["nexusUsername={u}\nnexusPassword={p}", "artifactory_password={p}",
                                "signing.keyId=24875D73\nsigning.password={p}\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg"]),
    ("build-gradle-credentials", "p", [
        'maven {\n    url "https://nexus.acme.io/repository/maven-releases/"\n    credentials {\n'
        "        username 'admin'\n        password '{p}'\n    }\n}",
        'credentials {\n    username = "{u}"\n    password = "{p}"\n}']),
    ("dotnet-networkcredential", "p", ['var cred = new NetworkCredential("{u}", "{p}");',
                                       'client.Credentials = new NetworkCredential("{u}", "{p}", "CORP");',
                                       'smtp.Credentials = new System.Net.NetworkCredential("noreply@acme.io", "{p}");']),
    ("npmrc-auth", "b", ["_auth={b}\nalways-auth=true", "//nexus.acme.io/repository/npm/:_auth={b}"]),
    ("docker-config-auth", "b", ['{\n  "auths": {\n    "https://index.docker.io/v1/": {\n      "auth": "{b}"\n    }\n  }\n}',
                                 '{"auths":{"registry.acme.io":{"auth":"{b}"}}}']),
    ("basic-auth-header", "b", ["Authorization: Basic {b}", 'curl -H "Authorization: Basic {b}" https://{h}/api/v1/status',
                                "headers: { Authorization: 'Basic {b}' },"]),
    ("composer-auth", "p", ['{"http-basic": {"repo.packagist.com": {"username": "token", "password": "{p}"}}}',
                              "composer config --global http-basic.repo.packagist.com token {p}"]),
    ("spring-datasource", "p", ["spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/app\n    username: app\n    password: {p}",
                                  "SPRING_DATASOURCE_PASSWORD={p}"]),
    ("tomcat-users", "p", ['<user username="{u}" password="{p}" roles="manager-gui,admin-gui"/>',
                             '  <user username="tomcat" password="{p}" roles="tomcat,manager-script"/>\n</tomcat-users>']),
    ("wp-config", "p", ["define( 'DB_USER', '{u}' );\ndefine( 'DB_PASSWORD', '{p}' );",
                          "define( 'AUTH_KEY',         '{p}' );"]),
    ("pgpass", "p", ["{h}:5432:*:{u}:{p}", "*:*:*:{u}:{p}"]),
    ("adonet-connection-string", "p", [
        "Server={h};Database=Shop;User Id={u};Password={p};TrustServerCertificate=True",
        '"ConnectionStrings": {\n  "Default": "Data Source={h};Initial Catalog=Orders;User ID={u};Password={p};"\n}',
        '<add name="Main" connectionString="Host={h};Port=5432;Database=app;Username={u};Password={p}" />']),
    ("odbc-connection-string", "p", ["Driver={ODBC Driver 18 for SQL Server};Server=tcp:{h},1433;Uid={u};Pwd={p};Encrypt=yes;",
                                     'conn = pyodbc.connect("DSN=Reporting;UID={u};PWD={p}")']),
    ("jdbc-url-password", "p", ["jdbc:sqlserver://{h}:1433;databaseName=shop;user={u};password={p}",
                                "jdbc:mysql://{h}:3306/shop?user={u}&password={p}&useSSL=true"]),
    ("azure-storage-connection-string", "k", [
        "DefaultEndpointsProtocol=https;AccountName=acmeprod;AccountKey={k};EndpointSuffix=core.windows.net",
        'AZURE_STORAGE_CONNECTION_STRING="DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={k}"',
        "az storage blob upload --account-name acmeprod --account-key {k} -c backups -f db.bak -n db.bak"]),
    ("cosmos-account-key", "k", ["AccountEndpoint=https://acme-db.documents.azure.com:443/;AccountKey={k};",
                                  '{\n  "primaryMasterKey": "{k}"\n}',
                                  'var client = new CosmosClient("https://acme-db.documents.azure.com:443/", "{k}");']),
    ("azure-shared-access-key", "sk", [
        "Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={sk}",
        "HostName=acme-hub.azure-devices.net;DeviceId=sensor-17;SharedAccessKey={sk}",
        '"EventHubConnection": "Endpoint=sb://acme-eh.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey={sk};EntityPath=events"']),
    ("azure-sas-token", "sig", [
        "https://acmeprod.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z&spr=https&sig={sig}",
        'AZURE_SAS="sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2025-06-30T17:00:00Z&spr=https&sig={sig}"']),
]
_URLS: list[tuple[str, list[str]]] = [
    ("postgres-url", ["postgres://{u}:{p}@{h}:5432/app", "DATABASE_URL=postgresql://{u}:{p}@{h}/shop?sslmode=require",
                      'engine = create_engine("postgresql+psycopg2://{u}:{p}@{h}/analytics")']),
    ("mysql-url", ["mysql://{u}:{p}@{h}:3306/shop", 'DB_DSN: "mysql+pymysql://{u}:{p}@{h}/wordpress?charset=utf8mb4"']),
    ("mongodb-srv-url", ["mongodb+srv://{u}:{p}@cluster0.ab1cd.mongodb.net/?retryWrites=true&w=majority",
                         'MONGO_URI="mongodb+srv://{u}:{p}@prod.x7k2q.mongodb.net/app"',
                         "mongoose.connect('mongodb://{u}:{p}@{h}:27017/shop?authSource=admin');"]),
    ("redis-url", ["redis://:{p}@{h}:6379/0", "REDIS_URL=rediss://default:{p}@eu1-bold-cat-31245.upstash.io:6379"]),
    ("amqp-url", ["amqp://{u}:{p}@{h}:5672/%2F",
                  "CELERY_BROKER_URL=amqps://{u}:{p}@b-1234abcd.mq.us-east-1.amazonaws.com:5671"]),
    ("https-basic-url", ["https://{u}:{p}@nexus.acme.io/repository/npm-private/",
                         "pip install --index-url https://{u}:{p}@pypi.acme.io/simple/ acme-core==2.3.1",
                         "[global]\nindex-url = https://{u}:{p}@pypi.acme.io/simple/"]),
    ("ftp-url", ["ftp://{u}:{p}@ftp.acme.io/outgoing/report.csv",
                 'lftp ftp://{u}:{p}@{h} -e "mirror -R dist /www; quit"']),
    ("proxy-url", ["export HTTPS_PROXY=http://{u}:{p}@proxy.corp.local:3128",
                   "Acquire::http::Proxy \"http://{u}:{p}@proxy.corp.local:8080/\";"]),
    ("mssql-url", ["mssql+pyodbc://{u}:{p}@{h}/shop?driver=ODBC+Driver+18+for+SQL+Server",
                   'SQLALCHEMY_DATABASE_URI = "mssql+pymssql://{u}:{p}@{h}:1433/reports"']),
    ("git-credentials-file", ["https://{u}:{p}@github.com\nhttps://{u}:{p}@gitlab.acme.io",
                              'git config --global credential.helper store && echo "https://{u}:{p}@github.com" >> ~/.git-credentials']),
]


@pos_family
def _config(rnd: random.Random) -> list[Case]:
    out: list[Case] = []
    for kind, field, templates in _CONFIG:
        for t in templates:
            f = _fields(rnd, url_safe=False)
            out.append((kind, fill(t, **f), [f[field]]))
    for kind, templates in _URLS:
        for t in templates:
            f = _fields(rnd, url_safe=True)
            out.append((kind, fill(t, **f), [f["p"]]))
    return out


# ---------------------------------------------------------------------------------------------
# Private keys. The body is random bytes behind the DER/packet prefix the real format starts with
# (so it begins "MIIE...", "MHcCAQEE...", "b3BlbnNzaC1rZXktdjE...", "lQ..."). The secrets are the
# first, a middle and the last line of the body: none of them may survive.
def _wrap(data: bytes, width: int) -> list[str]:
    s = base64.b64encode(data).decode()
    return [s[i:i + width] for i in range(0, len(s), width)]


def _pem(label: str, lines: list[str], headers: str = "") -> str:
    return f"-----BEGIN {label}-----\n{headers}" + "\n".join(lines) + f"\n-----END {label}-----"


def _key_secrets(lines: list[str]) -> list[str]:
    body = [ln for ln in lines if len(ln) >= 16]
    return list(dict.fromkeys([body[0], body[len(body) // 2], body[-1]]))


def key_rsa(rnd):  # PKCS#1 RSA 1024
    lines = _wrap(bytes.fromhex("3082025c020100028181") + rbytes(rnd, 598), 64)
    return _pem("RSA PRIVATE KEY", lines), lines


def key_ec(rnd):  # SEC1 P-256
    der = (bytes.fromhex("307702010104") + b"\x20" + rbytes(rnd, 32)
           + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + b"\x04" + rbytes(rnd, 64))
    lines = _wrap(der, 64)
    return _pem("EC PRIVATE KEY", lines), lines


def key_openssh(rnd):
    lines = _wrap(b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none" + rbytes(rnd, 360), 70)
    return _pem("OPENSSH PRIVATE KEY", lines), lines


def key_pkcs8(rnd):  # PKCS#8 RSA 2048
    lines = _wrap(bytes.fromhex("308204be020100300d06092a864886f70d0101010500048204a8") + rbytes(rnd, 1192), 64)
    return _pem("PRIVATE KEY", lines), lines


def key_pkcs8_encrypted(rnd):
    lines = _wrap(bytes.fromhex("3081ec305706092a864886f70d01050d304a") + rbytes(rnd, 221), 64)
    return _pem("ENCRYPTED PRIVATE KEY", lines), lines


def key_rsa_legacy_encrypted(rnd):
    lines = _wrap(rbytes(rnd, 608), 64)
    head = f"Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{rs(rnd, HEXU, 32)}\n\n"
    return _pem("RSA PRIVATE KEY", lines, head), lines


def key_pgp(rnd):
    lines = _wrap(bytes.fromhex("9503c60465") + rbytes(rnd, 700), 64)
    armor = lines + ["=" + rs(rnd, B64, 4)]
    return _pem("PGP PRIVATE KEY BLOCK", armor, "Comment: exported by gpg\n\n"), lines


def key_putty(rnd):
    pub, priv = _wrap(rbytes(rnd, 51), 64), _wrap(rbytes(rnd, 48), 64)
    text = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@build01\n"
            f"Public-Lines: {len(pub)}\n" + "\n".join(pub) + f"\nPrivate-Lines: {len(priv)}\n"
            + "\n".join(priv) + f"\nPrivate-MAC: {rs(rnd, HEX, 64)}")
    return text, priv


def _json_key(pem: str) -> str:
    return json.dumps({"type": "service_account", "project_id": "acme-prod-4821",
                       "private_key_id": "3f1c0a9e7b2d", "private_key": pem + "\n",
                       "client_email": "deployer@acme-prod-4821.iam.gserviceaccount.com"}, indent=2)


KEY_CTX: list[Callable[[str], str]] = [
    lambda pem: pem,
    lambda pem: "$ cat ~/.ssh/id_deploy\n" + pem,
    lambda pem: 'SIGNING_KEY = """' + pem + '\n"""',
    lambda pem: "tls:\n  key: |\n" + "\n".join("    " + ln for ln in pem.splitlines()),
    _json_key,
    lambda pem: 'PRIVATE_KEY="' + pem.replace("\n", "\\n") + '\\n"',
    lambda pem: 'resource "tls_cert_request" "web" {\n  private_key_pem = <<EOT\n' + pem + "\nEOT\n}",
    lambda pem: "Here's the key from the old server, can you add it to the vault?\n\n" + pem,
]

_KEYS = [("pem-rsa", key_rsa), ("pem-ec", key_ec), ("pem-openssh", key_openssh), ("pem-pkcs8", key_pkcs8),
         ("pem-pkcs8-encrypted", key_pkcs8_encrypted), ("pem-rsa-encrypted", key_rsa_legacy_encrypted),
         ("pgp-private-key", key_pgp), ("putty-private-key", key_putty)]


@pos_family
def _keys(rnd: random.Random) -> list[Case]:
    out: list[Case] = []
    for kind, gen in _KEYS:
        ctxs = [KEY_CTX[0], KEY_CTX[1], KEY_CTX[7]] if kind == "putty-private-key" else rnd.sample(KEY_CTX, 3)
        for ctx in ctxs:
            pem, lines = gen(rnd)
            out.append((kind, ctx(pem), _key_secrets(lines)))
    # base64 of a whole PEM, as in kubeconfig client-key-data or a Kubernetes Secret.
    cert_pem = _pem("CERTIFICATE", _wrap(bytes.fromhex("308202f4308201dca003020102") + rbytes(rnd, 747), 64))
    cert = base64.b64encode((cert_pem + "\n").encode()).decode()  # public: not a secret
    for t in ["apiVersion: v1\nkind: Config\nusers:\n- name: kubernetes-admin\n  user:\n"
              "    client-certificate-data: {c}\n    client-key-data: {v}",
              "apiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\nmetadata:\n  name: web-tls\ndata:\n"
              "  tls.crt: {c}\n  tls.key: {v}",
              "SSL_KEY_B64={v}"]:
        pem, _ = rnd.choice([key_rsa, key_ec])(rnd)
        v = base64.b64encode((pem + "\n").encode()).decode()
        out.append(("base64-pem", fill(t, v=v, c=cert), [v]))
    return out


# =============================================================================================
# Negatives: ordinary coding text that looks dangerous (long hex, base64, UUIDs, words like
# "token" and "password") but holds no secret. Each template is one case; its fields get fresh
# random values: sha/sha2 (40 hex), short/short2 (7 hex), h64/h64b/h32/h16/h12 (hex), uuid/uuid2,
# acct (12 digits), b64_32/b64_32b/b64_48/b64_64 (base64 of n bytes), fp (SSH fingerprint), ip,
# ms, port, and the public material of _public_fields.
def _neg_fields(rnd: random.Random) -> dict[str, str]:
    ip = f"10.{rnd.randrange(256)}.{rnd.randrange(256)}.{rnd.randrange(1, 255)}"
    return {"sha": rs(rnd, HEX, 40), "sha2": rs(rnd, HEX, 40), "short": rs(rnd, HEX, 7),
            "short2": rs(rnd, HEX, 7), "h64": rs(rnd, HEX, 64), "h64b": rs(rnd, HEX, 64),
            "h32": rs(rnd, HEX, 32), "h16": rs(rnd, HEX, 16), "h12": rs(rnd, HEX, 12),
            "uuid": ruuid(rnd), "uuid2": ruuid(rnd), "acct": str(rnd.randrange(10**11, 10**12)),
            "fp": b64(rnd, 32, pad=False), "b64_32": b64(rnd, 32), "b64_32b": b64(rnd, 32),
            "b64_48": b64(rnd, 48), "b64_64": b64(rnd, 64), "ip": ip,
            "ms": str(rnd.randrange(1, 900)), "port": str(rnd.randrange(30000, 60000)), **_public_fields(rnd)}


def _public_fields(rnd: random.Random) -> dict[str, str]:
    """Public keys, certificates and inline images: long base64 that is not a secret."""
    rsa_spki = bytes.fromhex("30820122300d06092a864886f70d01010105000382010f003082010a0282010100")
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x06\x00\x00\x00"
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M12 2L2 7l10 5 10-5-10-5z"/></svg>'
    cert = _pem("CERTIFICATE", _wrap(bytes.fromhex("308203") + rbytes(rnd, 700), 64))
    return {
        "ed25519": base64.b64encode(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rbytes(rnd, 32)).decode(),
        "sshrsa": base64.b64encode(b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x81\x00"
                                   + rbytes(rnd, 384)).decode(),
        "pubpem": _pem("PUBLIC KEY", _wrap(rsa_spki + rbytes(rnd, 256) + bytes.fromhex("0203010001"), 64)),
        "certpem": cert, "certind": cert.replace("\n", "\n  "),
        "pgppub": _pem("PGP PUBLIC KEY BLOCK", [""] + _wrap(bytes.fromhex("99020d04") + rbytes(rnd, 520), 64)
                       + ["=" + rs(rnd, B64, 4)]),
        "agepub": "age1" + rs(rnd, BECH32, 58), "wgpub": b64(rnd, 32),
        "png": base64.b64encode(png + rbytes(rnd, 120)).decode(), "svg": base64.b64encode(svg).decode(),
    }


_NEG_TABLE: list[tuple[str, list[str]]] = []


@neg_family
def _negatives(rnd: random.Random) -> list[tuple[str, str]]:
    return [(kind, fill(t, **_neg_fields(rnd))) for kind, templates in _NEG_TABLE for t in templates]


_NEG_TABLE += [
    ("git-sha", [
        "commit {sha}\nAuthor: Jane Doe <jane@example.com>\nDate:   Tue May 14 10:22:31 2024 +0200\n\n    Fix off-by-one in pager",
        "{short} (HEAD -> main, origin/main) Bump serde to 1.0.203\n{short2} Add retry to uploader",
        "diff --git a/src/lib.rs b/src/lib.rs\nindex {short}..{short2} 100644\n--- a/src/lib.rs\n+++ b/src/lib.rs",
        "^{short} (Jane Doe 2024-01-03 10:22:11 +0100 42) fn main() {",
        "Merge: {short} {short2}",
        "git cherry-pick {sha}",
        "HEAD is now at {short} Fix flaky integration test",
        "This reverts commit {sha}.",
        "https://github.com/rust-lang/rust/commit/{sha}",
        "[main {short}] Refactor token bucket rate limiter\n 3 files changed, 41 insertions(+), 12 deletions(-)",
        "   {short}..{short2}  main -> main",
        "Submodule path 'vendor/libgit2': checked out '{sha}'",
        "rev = \"{sha}\"",
    ]),
    ("lockfile", [
        '[[package]]\nname = "serde"\nversion = "1.0.203"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\n'
        'checksum = "{h64}"',
        "github.com/pkg/errors v0.9.1 h1:{b64_32}\ngithub.com/pkg/errors v0.9.1/go.mod h1:{b64_32b}",
        "requests==2.32.3 \\\n    --hash=sha256:{h64} \\\n    --hash=sha256:{h64b}",
        'lodash@^4.17.21:\n  version "4.17.21"\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{sha}"\n'
        "  integrity sha512-{b64_64}",
        '"node_modules/lodash": {\n  "version": "4.17.21",\n  "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n'
        '  "integrity": "sha512-{b64_64}"\n}',
        'files = [\n    {file = "urllib3-2.2.1-py3-none-any.whl", hash = "sha256:{h64}"},\n]',
        '"narHash": "sha256-{b64_32}",\n"rev": "{sha}",',
        "  /@babel/core@7.24.5:\n    resolution: {integrity: sha512-{b64_64}}",
        "    sha256 \"{h64}\"",
        "version https://git-lfs.github.com/spec/v1\noid sha256:{h64}\nsize 1048576",
        '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" '
        'integrity="sha384-{b64_48}" crossorigin="anonymous"></script>',
        "Downloaded sha2 v0.10.8\n    Checksum {h64}",
    ]),
    ("docker-digest", [
        "FROM python:3.12-slim@sha256:{h64}",
        "docker pull ghcr.io/acme/api@sha256:{h64}",
        "latest: digest: sha256:{h64} size: 2417",
        "    image: nginx:1.27@sha256:{h64}",
        "acme/worker   1.4.2     {h12}   3 days ago   187MB",
        " => exporting layers                                                       0.4s\n => writing image sha256:{h64}",
    ]),
    ("checksum", [
        "{h64}  rust-1.78.0-x86_64-unknown-linux-gnu.tar.gz",
        "MD5 ({short}.iso) = {h32}",
        "SHA256 checksum: {h64}",
        "curl -fsSL https://get.example.sh -o install.sh && echo \"{h64}  install.sh\" | sha256sum -c",
    ]),
    ("uuid-url", [
        "GET /api/v1/orders/{uuid} 200 {ms}ms",
        "https://portal.azure.com/#@contoso.onmicrosoft.com/resource/subscriptions/{uuid}/resourceGroups/rg-prod/overview",
        "https://app.example.com/projects/{uuid}/settings",
        "DELETE /v2/users/{uuid}/sessions/{uuid2} 204",
    ]),
    ("uuid-json", [
        '{"id": "{uuid}", "status": "shipped", "customer_id": "{uuid2}"}',
        '  "correlationId": "{uuid}",',
        'INSERT INTO orders (id, user_id) VALUES (\'{uuid}\', \'{uuid2}\');',
        "<PackageReference Include=\"Acme.Core\" Version=\"2.1.0\" />\n<ProjectGuid>{{uuid}}</ProjectGuid>",
    ]),
    ("uuid-log", [
        "2024-05-14T08:31:07.482Z INFO  request_id={uuid} method=GET path=/healthz status=200",
        "[{uuid}] job finished in {ms} ms",
        "trace_id={h32} span_id={h16} service=checkout",
        "Started container {h64}",
    ]),
    ("arn", [
        "arn:aws:iam::{acct}:role/GitHubActionsDeployRole",
        "arn:aws:s3:::acme-prod-logs/*",
        "arn:aws:lambda:us-east-1:{acct}:function:resize-images",
        "arn:aws:kms:eu-west-1:{acct}:key/{uuid}",
        "arn:aws:secretsmanager:us-east-1:{acct}:secret:prod/db-password-Ab12Cd",
        '"Principal": {"AWS": "arn:aws:iam::{acct}:root"},',
        "arn:aws:sts::{acct}:assumed-role/AWSReservedSSO_AdminAccess_{h16}/jane@example.com",
        "role_arn = arn:aws:iam::{acct}:role/OrganizationAccountAccessRole",
    ]),
    ("s3-bucket", [
        "aws s3 cp dist/ s3://acme-prod-artifacts/releases/v2.3.1/ --recursive",
        "https://acme-assets.s3.eu-west-1.amazonaws.com/img/logo.png",
        'bucket = "acme-terraform-state-{acct}"',
    ]),
    ("hostname", [
        "ssh ec2-user@ec2-3-85-12-44.compute-1.amazonaws.com",
        "host: acme-prod.cluster-c9xyz1abcd.us-east-1.rds.amazonaws.com",
        "PING build-01.ci.internal ({ip}) 56(84) bytes of data.",
        "Connecting to redis-master.cache.svc.cluster.local:{port}",
    ]),
    ("account-id", [
        "AWS account {acct} (prod)",
        "aws sts get-caller-identity\n{\"UserId\": \"AIDAJQABLZS4A3QDU576Q\", \"Account\": \"{acct}\", \"Arn\": \"arn:aws:iam::{acct}:user/jane\"}",
        'account_id = "{acct}"',
    ]),
    ("client-id", [
        'GOOGLE_CLIENT_ID=812345678901-{short}q8v1n2m3b4c5x6z7a8s9d0f.apps.googleusercontent.com',
        "AZURE_CLIENT_ID={uuid}\nAZURE_TENANT_ID={uuid2}",
        '"clientId": "{uuid}", "authority": "https://login.microsoftonline.com/{uuid2}"',
        "client_id: Iv1.{h16}",
        "UserPoolId: us-east-1_Ab3dE5gH7\nUserPoolClientId: 4{short}abcdefghijklmnopq",
        "oauth2-proxy --client-id={uuid} --provider=azure",
    ]),
]


_NEG_TABLE += [
    ("public-key", [
        "ssh-ed25519 {ed25519} jane@laptop",
        "ssh-rsa {sshrsa} deploy@ci-runner-03",
        'command="/usr/local/bin/backup-only",no-pty,no-port-forwarding ssh-ed25519 {ed25519} backup@nas',
        "github.com ssh-ed25519 {ed25519}",
        "{pubpem}",
        "$ openssl x509 -in server.crt -text -noout\n{certpem}",
        "ca.crt: |\n  {certind}",
        "{pgppub}",
        "# public key: {agepub}",
        "[Peer]\nPublicKey = {wgpub}\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.acme.io:51820",
    ]),
    ("data-url", [
        '<img alt="logo" src="data:image/png;base64,{png}">',
        ".icon { background-image: url(data:image/svg+xml;base64,{svg}); }",
        '{"thumbnail": "data:image/png;base64,{png}"}',
    ]),
    ("code-names-secret", [
        'password = getpass.getpass("Password: ")',
        'token = os.environ["GITHUB_TOKEN"]',
        "api_key = config.api_key",
        "        env:\n          API_KEY: ${{ secrets.API_KEY }}",
        "      secret: ${{ secrets.DEPLOY_KEY }}",
        "def login(username: str, password: str) -> Session:",
        "pub struct Config {\n    pub api_token: Option<String>,\n    pub password: Option<SecretString>,\n}",
        "token_count = 4096",
        "max_tokens: 8192",
        "id = Column(Integer, primary_key=True)",
        "sort_key = lambda item: item.created_at",
        'partition_key: "userId"',
        "      - uses: actions/cache@v4\n        with:\n          path: ~/.cargo/registry\n"
        "          key: ${{ runner.os }}-cargo-${{ hashFiles('**/Cargo.lock') }}",
        "PASSWORD_MIN_LENGTH = 12",
        'author = "Jane Doe"',
        "passthrough: true",
        "The password is wrong, please try again.",
        'if (!user.checkPassword(req.body.password)) return res.status(401).send("invalid password");',
        "const apiKey = process.env.OPENAI_API_KEY;",
        'let token = std::env::var("API_TOKEN").expect("API_TOKEN must be set");',
        'String password = System.getenv("DB_PASSWORD");',
        'var secret = builder.Configuration["Jwt:Secret"];',
        'token := os.Getenv("SLACK_TOKEN")',
        "password: ${DB_PASSWORD}",
        "DATABASE_URL=postgres://${DB_USER}:${DB_PASSWORD}@${DB_HOST}:5432/app",
        'aws_secret_access_key: "{{ vault_aws_secret_key }}"',
        "password_hash = bcrypt.hashpw(password.encode(), bcrypt.gensalt())",
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n        key: password",
        "secrets:\n  - source: db_password\n    target: /run/secrets/db_password",
        "kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d",
        'tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")',
        "tokens = lexer.tokenize(source)",
        'csrf_token = request.form.get("csrf_token")',
        '<input type="password" name="password" autocomplete="current-password" required>',
        "ALTER TABLE users ADD COLUMN password_reset_token VARCHAR(64);",
        'assert response.json()["token_type"] == "Bearer"',
        'curl -H "Authorization: Bearer $GITHUB_TOKEN" https://api.github.com/user',
        'echo "$CR_PAT" | docker login ghcr.io -u USERNAME --password-stdin',
        'secret = keyring.get_password("aletheia", "default")',
        "#[serde(skip_serializing)]\npub secret_key: SecretString,",
        "The API key must be sent in the X-Api-Key header.",
        "Rotate the signing key every 90 days (see docs/security.md).",
        'secret_name = "prod/db-password"',
        "belongs_to :author, foreign_key: :author_id",
        "Token::Ident(name) => self.parse_ident(name),",
        "private_key_path = ~/.ssh/id_ed25519",
        "ssh -i ~/.ssh/deploy_key.pem ubuntu@{ip}",
        "session_timeout_minutes: 30\nremember_token_ttl: 14d",
    ]),
    ("placeholder", [
        "OPENAI_API_KEY=YOUR_API_KEY_HERE",
        "export GITHUB_TOKEN=<your-token>",
        'api_key: "xxxxxxxxxxxxxxxxxxxxxxxx"',
        "password: ********",
        "STRIPE_SECRET_KEY=sk_live_...",
        'token = "<TOKEN>"',
        "AWS_SECRET_ACCESS_KEY=REPLACE_ME",
        '"apiKey": "${API_KEY}"',
        'password = "{{ db_password }}"',
        "SLACK_BOT_TOKEN=xoxb-your-bot-token",
        "Authorization: Bearer <access_token>",
        'client_secret: "<client-secret>"',
        "ANTHROPIC_API_KEY=sk-ant-...",
        "export HF_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        'password: ""  # set via DB_PASSWORD',
        "token: null",
        "mysql -u root -p",
        "docker login -u myuser -p $DOCKER_PASSWORD",
    ]),
    ("version", [
        "rustc 1.78.0 (9b00956e5 2024-04-29)",
        "node v20.11.1 (npm 10.2.4)",
        'version = "0.12.3-beta.2+build.20240501"',
        "go version go1.22.3 linux/amd64",
        "OpenSSL 3.0.13 30 Jan 2024 (Library: OpenSSL 3.0.13 30 Jan 2024)",
        "Linux build-01 6.5.0-1020-aws #20~22.04.1-Ubuntu SMP x86_64 GNU/Linux",
    ]),
    ("file-path", [
        "/home/jane/projects/aletheia/src/redact/mod.rs:214:17",
        "C:\\Users\\jdoe\\AppData\\Local\\Temp\\tmp{short}.tmp",
        "/var/lib/docker/overlay2/{h64}/merged",
        "node_modules/.pnpm/@babel+core@7.24.5/node_modules/@babel/core/lib/index.js",
        "target/debug/deps/aletheia-{h16}",
        "~/.config/gcloud/application_default_credentials.json",
    ]),
]


_NEG_TABLE += [
    ("hex-color", [
        "color: #1e90ff;",
        "background: linear-gradient(90deg, #ff7e5f 0%, #feb47b 100%);",
        "  --accent-600: #4f46e5;\n  --accent-700: #4338ca;",
        'theme = {"primary": "#0f172a", "muted": "#64748b", "danger": "#dc2626"}',
        'fill="#a3b2c1" stroke="#000000"',
    ]),
    ("css-classes", [
        '<button class="inline-flex items-center justify-between px-4 py-2 text-sm font-medium text-gray-700 '
        'hover:bg-gray-50 focus:outline-none focus:ring-2 focus:ring-indigo-500">Save</button>',
        '<div class="css-1dbjc4n r-1awozwy r-18u37iz r-1wtj0ep r-13qz1uu">',
        '<span class="sc-bdVaJa kXmZqf MuiTypography-root MuiTypography-body2 jss142">',
        ".btn-primary:not(:disabled):not(.disabled):active { transform: translateY(1px); }",
    ]),
    ("minified-js", [
        'function(e,t,n){"use strict";var r=n(12),o=n.n(r),i=n(47);t.a=function(e){return o()(e).reduce((t,n)=>t+n,0)}}',
        "!function(){var e={},t=[];function n(r){if(e[r])return e[r].exports;var o=e[r]={i:r,l:!1,exports:{}}}}();",
        '<script src="/static/js/main.{short}{short2}.chunk.js"></script>',
        "//# sourceMappingURL=app.{h16}.js.map",
        '"mappings": "AAAA,SAASA,EAAEC,GACT,OAAOA,EAAI,EAAEC,IAAG,GAAKD,EAAE,MAC3B"',
    ]),
    ("log-line", [
        "2024-05-14T08:31:07.482Z INFO  [req={h16}] GET /healthz 200 {ms}ms",
        '{ip} - - [14/May/2024:08:31:07 +0000] "POST /api/login HTTP/1.1" 401 53 "-" "Mozilla/5.0 (X11; Linux x86_64)"',
        "May 14 08:31:07 web-01 sshd[21345]: Accepted publickey for deploy from {ip} port {port} ssh2: ED25519 SHA256:{fp}",
        "level=warn ts=2024-05-14T08:31:07Z caller=refresh.go:88 msg=\"token expired, refreshing\" user_id={uuid}",
        "I0514 08:31:07.482931       1 controller.go:214] Successfully synced 'default/web-{short}'",
        "[2024-05-14 08:31:07,482] WARNING auth: invalid password for user 'jane' from {ip}",
        "Warning  BackOff  3m (x12 over 10m)  kubelet  Back-off restarting failed container api in pod api-{short}-x9k2p",
        "cache miss key=user:{uuid}:profile ttl=3600",
        "The key fingerprint is:\nSHA256:{fp} jane@laptop",
    ]),
    ("compiler-error", [
        "error[E0382]: borrow of moved value: `token`\n  --> src/auth.rs:42:20\n   |\n41 |     let t = token;\n"
        "   |             ----- value moved here\n42 |     println!(\"{}\", token);\n   |                    ^^^^^ value borrowed here after move",
        "src/config.ts:17:24 - error TS2339: Property 'apiKey' does not exist on type 'Settings'.",
        "AuthService.java:88: error: cannot find symbol\n        return password.equals(input);\n               ^\n  symbol:   variable password",
        "warning: unused variable: `secret`\n --> src/vault.rs:10:9\n  = note: `#[warn(unused_variables)]` on by default",
        "./main.go:27:2: declared and not used: apiToken",
        "E501 line too long (104 > 88 characters) src/aletheia/redact.py:57:89",
    ]),
    ("stack-trace", [
        'Traceback (most recent call last):\n  File "/app/main.py", line 12, in <module>\n    key = os.environ["API_KEY"]\n'
        '  File "/usr/lib/python3.11/os.py", line 679, in __getitem__\n    raise KeyError(key) from None\nKeyError: \'API_KEY\'',
        "Exception in thread \"main\" java.lang.IllegalStateException: token refresh failed\n"
        "\tat com.acme.auth.TokenService.refresh(TokenService.java:88)\n\tat com.acme.Main.main(Main.java:14)",
        "thread 'main' panicked at src/main.rs:14:5:\ncalled `Result::unwrap()` on an `Err` value: NotPresent\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        "Error: ENOENT: no such file or directory, open '/app/.env'\n    at Object.openSync (node:fs:573:18)",
        "goroutine 1 [running]:\nmain.loadSecrets(0xc000012345)\n\t/src/cmd/api/main.go:41 +0x1d4",
    ]),
    ("test-output", [
        "test redact::tests::keeps_git_sha ... ok\ntest redact::tests::removes_github_pat ... ok",
        "test result: ok. 142 passed; 0 failed; 3 ignored; 0 measured; 0 filtered out; finished in 1.84s",
        "tests/test_auth.py::test_password_reset_token_expires PASSED                [ 42%]",
        "   Compiling aletheia v0.4.0 (/work/main)\n    Finished `release` profile [optimized] target(s) in 41.37s",
        "=========================== 87 passed, 2 skipped in 3.21s ============================",
        "PASS  src/__tests__/apiKey.test.ts (5.123 s)\n  ✓ masks the api key in logs (12 ms)",
    ]),
    ("crypto-address", [
        "Send ETH to 0x{sha}",
        "bc1q{short}{short2}xy2kgdygjrsqtzq2n0yrf2493p83kkfjhx0wlh",
        "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
    ]),
    ("misc-hex", [
        "Content-Security-Policy: script-src 'self' 'nonce-{b64_32}'",
        "ETag: \"{h32}\"",
        "X-Request-Id: {h32}",
        'If-None-Match: W/"{h64}"',
        "Set-Cookie: _ga=GA1.2.{port}{port}.1715675467; Path=/; Max-Age=63072000",
        "gpg: key {h16}: public key \"Jane Doe <jane@example.com>\" imported",
        "Fingerprint: {sha}",
    ]),
]


_NEG_TABLE += [
    ("already-redacted", [
        "password: [REDACTED]",
        "Run echo \"***\" | docker login ghcr.io -u acme-bot --password-stdin",
        "  + password = (sensitive value)\n  + username = \"app\"",
        "GITHUB_TOKEN: ***",
        "token=<redacted> user=jane status=ok",
    ]),
    ("detection-code", [
        'GITHUB_PAT = re.compile(r"ghp_[A-Za-z0-9]{36}")',
        'let aws = Regex::new(r"AKIA[0-9A-Z]{16}").unwrap();',
        "# Stripe live keys start with sk_live_ and Slack bot tokens with xoxb-",
        "- id: private-key\n  regex: '-----BEGIN [A-Z ]*PRIVATE KEY-----'",
        "if line.starts_with(\"-----BEGIN\") && line.contains(\"PRIVATE KEY\") { in_key = true; }",
    ]),
    ("hashing-code", [
        "digest = hashlib.sha256(data).hexdigest()",
        "const hash = crypto.createHash('sha512').update(buf).digest('base64');",
        "let key = derive_key(&password, &salt, 600_000);",
        'hash, _ := bcrypt.GenerateFromPassword([]byte(pw), bcrypt.DefaultCost)',
    ]),
    ("config-no-secret", [
        "[server]\nhost = \"0.0.0.0\"\nport = 8080\nworkers = 4\nlog_level = \"info\"",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  LOG_LEVEL: debug\n  FEATURE_FLAGS: \"search,beta-ui\"",
        '{"compilerOptions": {"target": "ES2022", "module": "NodeNext", "strict": true, "outDir": "dist"}}',
        "[tool.ruff]\nline-length = 100\nselect = [\"E\", \"F\", \"I\"]",
        "spring.jpa.hibernate.ddl-auto=validate\nserver.port=8443\nmanagement.endpoints.web.exposure.include=health,info",
        "auth:\n  provider: oidc\n  issuer: https://login.acme.io/\n  scopes: [openid, profile, email]",
        "keepalive_timeout 65;\nclient_max_body_size 20m;\nssl_certificate /etc/nginx/tls/fullchain.pem;",
        'resource "aws_s3_bucket" "logs" {\n  bucket = "acme-logs-{acct}"\n  force_destroy = false\n}',
    ]),
    ("prose", [
        "I reset my password yesterday and now the token refresh keeps failing with 401.",
        "Never commit your API keys; use a secret manager and inject them at runtime.",
        "The signing secret lives in Vault under kv/payments; ask #infra for access.",
        "We rotated all tokens after the incident on May 3rd, nothing was leaked.",
        "To create a token go to Settings -> Developer settings -> Personal access tokens.",
        "Our bcrypt cost factor is 12, and passwords must be at least 12 characters.",
    ]),
    ("shell-no-secret", [
        "git log --oneline -n 20 | grep -i token",
        "ssh-keygen -t ed25519 -C \"jane@example.com\" -f ~/.ssh/id_ed25519",
        "openssl rand -hex 32 > /tmp/key && chmod 600 /tmp/key",
        "aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text",
        "vault kv get -field=password secret/app/db",
        "gh auth status\n  ✓ Logged in to github.com account jane (keyring)\n  - Token: gho_************************************",
        "kubectl create secret generic db-creds --from-env-file=.env.prod",
        "export AWS_PROFILE=prod && aws s3 ls",
    ]),
]

# ---- end of families ----

if __name__ == "__main__":
    from collections import Counter

    R = random.Random(23)
    pos, neg = positives(R), negatives(R)
    for kind, text, secrets in pos:
        assert secrets, (kind, text)
        for s in secrets:
            assert s and s in text, (kind, s, text)
    for kind, text in neg:
        assert text, kind
    pc, nc = Counter(k for k, _, _ in pos), Counter(k for k, _ in neg)
    for kind, n in sorted(pc.items()):
        print(f"+ {kind:34} {n}")
    for kind, n in sorted(nc.items()):
        print(f"- {kind:34} {n}")
    print(f"positives: {len(pos)} cases, {len(pc)} kinds; negatives: {len(neg)} cases, {len(nc)} kinds")
