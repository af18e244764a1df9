"""Host CLIs that nobody on this project wrote: Claude Code registers and connects to the server,
and the MCP Inspector lists the tools under --strict schema checks and calls one."""
import json

from conftest import run


def test_claude_code_connects(aletheia, home, node_env):
    add = run(["claude", "mcp", "add", "-s", "user", "aletheia", "-e", f"ALETHEIA_DATA_DIR={home / 'data'}",
               "--", aletheia, "mcp"], node_env, cwd=home / "shop")
    assert add.returncode == 0, add.stderr
    listed = run(["claude", "mcp", "list"], node_env, cwd=home / "shop")
    # claude mcp list exits 0 either way: the text says whether it connected.
    assert f"aletheia: {aletheia} mcp - ✔ Connected" in listed.stdout, listed.stdout + listed.stderr


def test_inspector_strict_tools_list_and_a_call(aletheia, home, node_env):
    data = f"ALETHEIA_DATA_DIR={home / 'data'}"
    listed = run(["mcp-inspector", "--cli", "-e", data, aletheia, "mcp", "--method", "tools/list", "--strict"],
                 node_env, cwd=home)
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr
    assert "0 errors, 0 warnings" in listed.stderr or "warning" not in listed.stderr, listed.stderr
    tools = json.loads(listed.stdout)["tools"]
    assert len(tools) == 13
    saved = run(["mcp-inspector", "--cli", "-e", data, aletheia, "mcp", "--method", "tools/call",
                 "--tool-name", "save_memory", "--tool-arg", "text=Use pnpm, not npm"], node_env, cwd=home)
    assert saved.returncode == 0, saved.stderr
    assert json.loads(saved.stdout)["content"][0]["text"].startswith("Saved as #1 in ")
    found = run(["mcp-inspector", "--cli", "-e", data, aletheia, "mcp", "--method", "tools/call",
                 "--tool-name", "search", "--tool-arg", "query=pnpm"], node_env, cwd=home)
    assert "[note] Use pnpm, not npm" in json.loads(found.stdout)["content"][0]["text"], found.stdout
    # The memory as a resource, and the templates that name it.
    read = run(["mcp-inspector", "--cli", "-e", data, aletheia, "mcp", "--method", "resources/read",
                "--uri", "aletheia://memory/1"], node_env, cwd=home)
    assert read.returncode == 0, read.stderr
    body = json.loads(json.loads(read.stdout)["contents"][0]["text"])
    assert body["memory"]["text"] == "Use pnpm, not npm" and body["versions"][0]["classification"] == "original", body
    templates = run(["mcp-inspector", "--cli", "-e", data, aletheia, "mcp", "--method", "resources/templates/list"],
                    node_env, cwd=home)
    assert "aletheia://memory/{id}" in templates.stdout, templates.stdout + templates.stderr
