"""`aletheia hub` with real clients: the official Python SDK connects with a token and is held
to its scope, and Claude Code connects through the very line `aletheia mcp-link create` prints
(`claude mcp add --transport http … --header`), then `claude mcp list`."""
import asyncio
import json
import os
import shlex
import subprocess

import mcp
import pytest
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from conftest import run, serving


@pytest.fixture
def hub(aletheia, home):
    """`aletheia hub --port 0` on a temporary hub file; yields (base URL, the file)."""
    db = home / "team.db"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env.update(HOME=str(home), ALETHEIA_DATA_DIR=str(home / "data"))
    with serving([aletheia, "hub", "--port", "0", "--hub-db", str(db)], env, home / "shop") as url:
        yield url, db


def link(aletheia, db, scope, url, *extra):
    out = subprocess.run([aletheia, "--json", "mcp-link", "create", "--hub-db", str(db), "--scope", scope,
                          "--url", url, *extra], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def client(url, token):
    transport = streamable_http_client(url, http_client=create_mcp_http_client(
        headers={"Authorization": f"Bearer {token}"}))
    return mcp.Client(transport, mode="legacy", client_info=mcp.Implementation(name="hub-probe", version="1"))


def test_python_sdk_connects_with_a_token_and_is_held_to_its_scope(aletheia, hub):
    base, db = hub
    url = base + "/mcp"
    writer = link(aletheia, db, "sync", url, "--projects", "shop")["token"]
    reader = link(aletheia, db, "read", url)["token"]

    async def go():
        async with client(url, writer) as c:
            assert c.server_info.name == "aletheia"
            assert len((await c.list_tools()).tools) == 13
            saved = await c.call_tool("save_memory", {"text": "Deploys go out on Tuesdays", "project": "shop"})
            assert not saved.is_error, saved.content[0].text
            other = await c.call_tool("search", {"query": "deploys", "project": "billing"})
            assert other.is_error and other.content[0].text == 'Project "billing" is not allowed for this token.'
        async with client(url, reader) as c:
            found = await c.call_tool("search", {"query": "deploys tuesdays"})
            assert "Deploys go out on Tuesdays" in found.content[0].text, found.content[0].text
            refused = await c.call_tool("save_memory", {"text": "x"})
            assert refused.is_error and refused.content[0].text == "This token cannot call save_memory."

    asyncio.run(go())


def test_claude_code_connects_with_the_line_mcp_link_prints(aletheia, hub, home, node_env):
    base, db = hub
    url = base + "/mcp"
    made = link(aletheia, db, "mcp", url, "--label", "claude")
    line = made["entries"]["Claude Code"]
    argv = shlex.split(line)
    assert argv[:3] == ["claude", "mcp", "add"], line
    added = run(argv, node_env, cwd=home / "shop")
    assert added.returncode == 0, added.stdout + added.stderr
    listed = run(["claude", "mcp", "list"], node_env, cwd=home / "shop")
    assert f"aletheia-hub: {url} (HTTP) - ✔ Connected" in listed.stdout, listed.stdout + listed.stderr
    # Revoked, the same entry no longer connects.
    subprocess.run([aletheia, "mcp-link", "revoke", "--hub-db", str(db), str(made["id"])], check=True,
                   capture_output=True)
    listed = run(["claude", "mcp", "list"], node_env, cwd=home / "shop")
    assert "aletheia-hub" in listed.stdout and "✔ Connected" not in listed.stdout, listed.stdout
