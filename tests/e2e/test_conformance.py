"""The official MCP conformance suite (@modelcontextprotocol/conformance) against /mcp of
`aletheia server`. Most of its scenarios call fixture tools, resources and prompts of the suite's
own test server; those are listed, each with the reason, in conformance-expected-failures.yml, and
the suite exits 0 only when exactly the listed ones fail. The scenarios any server must pass are
also checked one by one from their checks.json."""
import json
import os
import pathlib
import re

import pytest

from conftest import run, serving

VERSION = "0.1.16"
INSTALL = f"npm i --no-audit --no-fund @modelcontextprotocol/conformance@{VERSION}"
EXPECTED = pathlib.Path(__file__).with_name("conformance-expected-failures.yml")
MUST_PASS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"]


@pytest.fixture
def conformance():
    """The suite's executable; skips when scripts/test has not installed it."""
    npm_bin = os.environ.get("ALETHEIA_NPM_BIN")
    if not npm_bin:
        pytest.skip("ALETHEIA_NPM_BIN is not set: run the suite through scripts/test")
    exe = pathlib.Path(npm_bin) / "conformance"
    if not exe.exists():
        pytest.skip(f"the MCP conformance suite is not installed in {npm_bin}: run `{INSTALL}` in its node_modules' folder")
    package = pathlib.Path(npm_bin).parent / "@modelcontextprotocol" / "conformance" / "package.json"
    installed = json.loads(package.read_text())["version"]
    # The expected failures are those of one release: another one may add, rename or tighten scenarios.
    assert installed == VERSION, f"conformance {installed} is installed, the expected failures are {VERSION}'s: run `{INSTALL}`"
    return str(exe)


@pytest.fixture
def server(aletheia, home, server_env):
    """`aletheia server --port 0` on a temporary store; yields its base URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env.update(server_env, HOME=str(home))
    with serving([aletheia, "server", "--port", "0", "--no-worker"], env, home / "shop") as url:
        yield url


def listed():
    """The scenario names under `server:` in the expected-failures file."""
    return [m.group(1) for m in re.finditer(r"^\s*-\s*([\w-]+)\s*$", EXPECTED.read_text(), re.M)]


def checks(results, scenario):
    """The checks of one scenario from the -o folder (`server-<scenario>-<timestamp>/checks.json`)."""
    pattern = re.compile(rf"server-{re.escape(scenario)}-\d{{4}}-\d\d-\d\dT[\d-]+Z")
    found = [d for d in results.iterdir() if pattern.fullmatch(d.name)]
    assert len(found) == 1, f"{scenario}: expected one result folder, found {sorted(d.name for d in results.iterdir())}"
    return json.loads((found[0] / "checks.json").read_text())


def test_the_must_pass_scenarios_are_not_excused():
    names = listed()
    assert len(names) == len(set(names)) and names, names
    assert not set(MUST_PASS) & set(names)


def test_conformance_suite(conformance, server, node_env, tmp_path):
    results = tmp_path / "results"
    p = run([conformance, "server", "--url", server + "/mcp", "--expected-failures", str(EXPECTED), "-o", str(results)],
            node_env, cwd=tmp_path, timeout=300)
    # The summary and the baseline verdict (unexpected failures, stale entries) close the output.
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-3000:]
    assert "Baseline check passed" in p.stdout, p.stdout[-3000:]

    for scenario in MUST_PASS:
        got = checks(results, scenario)
        assert got, f"{scenario} ran no checks"
        bad = [c for c in got if c["status"] not in ("SUCCESS", "INFO")]
        assert not bad, f"{scenario}: " + json.dumps(bad, indent=1)[:3000]
