"""MCP over Streamable HTTP at /mcp of `aletheia server`: the official Python SDK lists the same 13
tools as on stdio and calls them, and plain HTTP checks what the transport refuses (GET, a foreign
Origin or Host, a request without its session, a body that is not JSON-RPC) and that it says so
in JSON."""
import asyncio
import json
import os
import urllib.error
import urllib.request

import mcp
import pytest

from conftest import serving

TOOLS = {"search", "timeline", "get_observations", "session_start_context", "fact_history", "list_rules",
         "work_state_read", "save_memory", "add_rule", "confirm_rule", "dismiss_memory", "restore_memory",
         "work_state_write"}


@pytest.fixture
def server(aletheia, home, server_env):
    """`aletheia server --port 0` on a temporary store; yields its base URL."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env.update(server_env, HOME=str(home))
    with serving([aletheia, "server", "--port", "0", "--no-worker"], env, home / "shop") as url:
        yield url


def post(url, message, headers=None):
    """POST one JSON-RPC message; returns (status, headers, body), whatever the status."""
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    h.update(headers or {})
    req = urllib.request.Request(url, data=json.dumps(message).encode(), headers=h, method="POST")
    return send(req)


def send(req):
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}}


async def exercise(url, mode):
    async with mcp.Client(url, mode=mode, client_info=mcp.Implementation(name="http-probe", version="1")) as c:
        assert c.server_info.name == "aletheia"
        assert c.instructions.startswith("Aletheia is this user's memory")
        listed = await c.list_tools()
        assert {t.name for t in listed.tools} == TOOLS
        by_name = {t.name: t for t in listed.tools}
        assert by_name["search"].annotations.read_only_hint is True
        assert by_name["work_state_write"].annotations.destructive_hint is True

        saved = await c.call_tool("save_memory", {"text": f"Use pnpm, not npm, in the shop repo ({mode})", "type": "decision"})
        assert not saved.is_error, saved.content[0].text
        assert saved.content[0].text.startswith("Saved as #") and saved.content[0].text.endswith(" in shop.")
        found = await c.call_tool("search", {"query": "pnpm"})
        assert not found.is_error
        # The client's own name from initialize is who saved it, and the line says so with its age.
        line = f"[decision] Use pnpm, not npm, in the shop repo ({mode}) (shop, note by http-probe, moments ago)"
        assert line in found.content[0].text, found.content[0].text

        bad = await c.call_tool("search", {"query": 3})
        assert bad.is_error and bad.content[0].text == "query must be a string."
        unknown = await c.call_tool("no_such_tool", {})
        assert unknown.is_error


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_python_sdk_over_http(server, mode):
    asyncio.run(exercise(server + "/mcp", mode))


def test_the_stdio_and_http_listings_are_the_same(aletheia, server, server_env):
    async def both():
        env = dict(server_env)
        async with mcp.Client(mcp.StdioServerParameters(command=aletheia, args=["mcp"], env=env), mode="legacy") as s:
            stdio = (await s.list_tools()).tools
        async with mcp.Client(server + "/mcp", mode="legacy") as h:
            http = (await h.list_tools()).tools
        return stdio, http

    stdio, http = asyncio.run(both())
    dump = lambda tools: [t.model_dump(by_alias=True, exclude_none=True) for t in tools]
    assert dump(http) == dump(stdio)


def test_initialize_answers_with_a_session(server):
    status, headers, body = post(server + "/mcp", INITIALIZE)
    assert status == 200, body
    assert headers.get("Mcp-Session-Id"), headers
    assert '"protocolVersion":"2025-11-25"' in body
    older = dict(INITIALIZE, params=dict(INITIALIZE["params"], protocolVersion="2025-03-26"))
    assert '"protocolVersion":"2025-03-26"' in post(server + "/mcp", older)[2]


def test_answers_come_as_json_within_a_session(server):
    status, headers, body = post(server + "/mcp", INITIALIZE)
    assert headers.get("Content-Type") == "application/json", (headers, body)
    assert json.loads(body)["result"]["serverInfo"]["name"] == "aletheia"
    session = {"Mcp-Session-Id": headers["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-11-25"}
    assert post(server + "/mcp", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)[0] == 202
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "save_memory", "arguments": {"text": "Answers on /mcp are plain JSON", "type": "note"}}}
    status, headers, body = post(server + "/mcp", call, session)
    assert (status, headers.get("Content-Type")) == (200, "application/json"), body
    answer = json.loads(body)
    assert answer["id"] == 7 and answer["result"]["content"][0]["text"].startswith("Saved as #"), answer


def test_get_is_not_allowed(server):
    req = urllib.request.Request(server + "/mcp", headers={"Accept": "text/event-stream"}, method="GET")
    assert send(req)[0] == 405


def test_a_foreign_origin_is_forbidden(server):
    status, _, body = post(server + "/mcp", INITIALIZE, {"Origin": "http://evil.example"})
    assert status == 403, body
    # The server's own origin is fine.
    assert post(server + "/mcp", INITIALIZE, {"Origin": server})[0] == 200


def test_a_foreign_host_is_refused(server):
    status, _, body = post(server + "/mcp", INITIALIZE, {"Host": "evil.example"})
    assert 400 <= status < 500, (status, body)


def test_a_request_without_its_session_is_a_bad_request(server):
    status, headers, _ = post(server + "/mcp", INITIALIZE)
    assert status == 200 and headers.get("Mcp-Session-Id")
    status, _, body = post(server + "/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                           {"MCP-Protocol-Version": "2025-11-25"})
    assert (status, json.loads(body)["error"]["code"]) == (400, "session_required"), body
    status, _, body = post(server + "/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
                           {"MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": "no-such-session"})
    assert (status, json.loads(body)["error"]["code"]) == (404, "session_not_found"), body


def test_a_body_that_is_not_json_rpc_is_a_json_rpc_error(server):
    h = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    for data, code in [(b"{not json", -32700), (b'{"hello": "world"}', -32600)]:
        status, headers, body = send(urllib.request.Request(server + "/mcp", data=data, headers=h, method="POST"))
        assert (status, headers.get("Content-Type")) == (400, "application/json"), body
        assert json.loads(body)["error"]["code"] == code, body


def test_delete_ends_the_session(server):
    _, headers, _ = post(server + "/mcp", INITIALIZE)
    session = {"Mcp-Session-Id": headers["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-11-25"}
    # 204, not rmcp's 202: the Python SDK warns on every disconnect unless it reads 200 or 204.
    assert send(urllib.request.Request(server + "/mcp", headers=session, method="DELETE"))[0] == 204
    assert post(server + "/mcp", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)[0] == 404


def test_claude_code_connects_over_http(server, node_env, home):
    """Claude Code registers the running server by URL and its health check connects."""
    from conftest import run
    url = server + "/mcp"
    add = run(["claude", "mcp", "add", "--transport", "http", "-s", "user", "aletheia", url], node_env, cwd=home / "shop")
    assert add.returncode == 0, add.stdout + add.stderr
    listed = run(["claude", "mcp", "list"], node_env, cwd=home / "shop")
    # claude mcp list exits 0 either way: the text says whether it connected.
    assert f"aletheia: {url} (HTTP) - ✔ Connected" in listed.stdout, listed.stdout + listed.stderr


def test_inspector_strict_over_http(server, node_env, home):
    """The MCP Inspector's strict schema check, a save and a search over HTTP."""
    from conftest import run
    url = server + "/mcp"
    listed = run(["mcp-inspector", "--cli", url, "--method", "tools/list", "--strict"], node_env, cwd=home)
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr
    assert len(json.loads(listed.stdout)["tools"]) == len(TOOLS)
    saved = run(["mcp-inspector", "--cli", url, "--method", "tools/call", "--tool-name", "save_memory",
                 "--tool-arg", "text=Inspector notes travel over HTTP"], node_env, cwd=home)
    assert saved.returncode == 0, saved.stderr
    assert json.loads(saved.stdout)["content"][0]["text"].startswith("Saved as #1 in ")
    found = run(["mcp-inspector", "--cli", url, "--method", "tools/call", "--tool-name", "search",
                 "--tool-arg", "query=inspector"], node_env, cwd=home)
    assert "Inspector notes travel over HTTP" in json.loads(found.stdout)["content"][0]["text"], found.stdout
    read = run(["mcp-inspector", "--cli", url, "--method", "resources/read", "--uri", "aletheia://memory/1"],
               node_env, cwd=home)
    assert read.returncode == 0, read.stderr
    assert json.loads(json.loads(read.stdout)["contents"][0]["text"])["memory"]["text"] == "Inspector notes travel over HTTP"
    prompts = run(["mcp-inspector", "--cli", url, "--method", "prompts/list"], node_env, cwd=home)
    assert [p["name"] for p in json.loads(prompts.stdout)["prompts"]] == ["start_session", "recall"], prompts.stdout


async def resources_and_prompts(client, via):
    """What a client that mentions a memory or starts a session from a menu sees."""
    text = f"The shop deploys with pnpm 9 (saved {via})"
    saved = await client.call_tool("save_memory", {"text": text, "type": "decision"})
    assert not saved.is_error, saved.content[0].text
    mid = int(saved.content[0].text.split("#")[1].split()[0])
    templates = await client.list_resource_templates()
    assert [t.uri_template for t in templates.resource_templates] == ["aletheia://memory/{id}", "aletheia://context/{project}"]
    listed = await client.list_resources()
    assert [str(r.uri) for r in listed.resources] == ["aletheia://context/shop"]
    read = await client.read_resource(f"aletheia://memory/{mid}")
    body = json.loads(read.contents[0].text)
    assert read.contents[0].mime_type == "application/json"
    assert body["memory"]["text"] == text
    assert [v["classification"] for v in body["versions"]] == ["original"]
    block = await client.read_resource("aletheia://context/shop")
    assert f"saved {via}" in block.contents[0].text
    with pytest.raises(mcp.MCPError) as missing:
        await client.read_resource("aletheia://memory/999999")
    assert "No memory #999999." in str(missing.value)
    prompts = await client.list_prompts()
    assert [p.name for p in prompts.prompts] == ["start_session", "recall"]
    got = await client.get_prompt("recall", {"topic": "deploys"})
    assert "search for: deploys" in got.messages[0].content.text
    return body["source"]


def test_resources_and_prompts_over_stdio_and_http(aletheia, server, server_env):
    async def both():
        env = dict(server_env)
        async with mcp.Client(mcp.StdioServerParameters(command=aletheia, args=["mcp"], env=env), mode="legacy") as s:
            stdio = await resources_and_prompts(s, "over stdio")
        async with mcp.Client(server + "/mcp", mode="legacy") as h:
            http = await resources_and_prompts(h, "over http")
        return stdio, http

    stdio, http = asyncio.run(both())
    # Each names where the memory came from: the client that saved it.
    assert "note by" in stdio and "note by" in http, (stdio, http)
