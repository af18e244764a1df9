"""The official Python MCP SDK, in its default (server/discover first) and legacy modes, lists
the 13 tools and calls each with valid and invalid arguments."""
import asyncio
import json

import mcp
import pytest

from conftest import run

TOOLS = {"search", "timeline", "get_observations", "session_start_context", "fact_history", "list_rules",
         "work_state_read", "save_memory", "add_rule", "confirm_rule", "dismiss_memory", "restore_memory",
         "work_state_write"}


def text(result):
    return result.content[0].text


async def exercise(aletheia, env, mode):
    params = mcp.StdioServerParameters(command=aletheia, args=["mcp"], env=env)
    async with mcp.Client(params, mode=mode) as c:
        listed = await c.list_tools()
        names = {t.name for t in listed.tools}
        assert names == TOOLS
        by_name = {t.name: t for t in listed.tools}
        assert by_name["search"].annotations.read_only_hint is True
        assert by_name["work_state_write"].annotations.destructive_hint is True
        assert by_name["save_memory"].annotations.idempotent_hint is True
        assert by_name["save_memory"].annotations.destructive_hint is False

        async def ok(name, args):
            r = await c.call_tool(name, args)
            assert not r.is_error, f"{name} {args}: {text(r)}"
            return text(r)

        async def err(name, args, expected):
            r = await c.call_tool(name, args)
            assert r.is_error, f"{name} {args} should fail: {text(r)}"
            assert text(r) == expected, text(r)
            assert "\n" not in text(r)

        # save_memory
        saved = await ok("save_memory", {"text": "Use pnpm, not npm, in the shop repo", "title": "Use pnpm, not npm", "type": "decision", "pinned": True})
        assert saved.startswith("Saved as #") and saved.endswith(" in shop.")
        mid = int(saved.split("#")[1].split()[0])
        assert await ok("save_memory", {"text": "Use pnpm, not npm, in the shop repo", "title": "Use pnpm, not npm", "type": "decision", "pinned": True}) == f"Already saved as #{mid}."
        gotcha = await ok("save_memory", {"text": "Staging deploys need the VPN", "type": "gotcha"})
        gid = int(gotcha.split("#")[1].split()[0])
        await err("save_memory", {}, "text is required.")
        await err("save_memory", {"text": 5}, "text must be a string.")
        await err("save_memory", {"text": "x" * 20001}, "text is over 20000 characters.")
        await err("save_memory", {"text": "x", "title": "t" * 401}, "title is over 400 characters.")
        await err("save_memory", {"text": "x", "type": "idea"}, 'type: unknown type "idea": use one of decision, gotcha, bugfix, feature, refactor, change, discovery, note.')
        await err("save_memory", {"text": "x", "pinned": "yes"}, "pinned must be true or false.")

        # search
        found = await ok("search", {"query": "pnpm", "limit": 5})
        assert found.startswith("<aletheia-memory>\nRecalled memory") and found.endswith("</aletheia-memory>")
        assert f"#{mid} " in found and "[decision] Use pnpm, not npm (shop, " in found and "pinned)" in found
        assert (await ok("search", {"query": "kubernetes"})).startswith("No matches.")
        assert (await ok("search", {"query": "pnpm", "limit": 1000})).count("\n#") >= 1
        await err("search", {}, "query is required.")
        await err("search", {"query": 3}, "query must be a string.")
        await err("search", {"query": "x", "since": "someday"}, 'since: cannot read the date "someday": use YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z], epoch milliseconds or a relative time (yesterday, 3 days ago, 2w).')
        assert (await ok("search", {"query": "pnpm", "since": "yesterday"})).count("\n#") >= 1
        await err("search", {"query": "x", "offset": -1}, "offset must be 0 or more.")
        await err("search", {"query": "x", "order": "random"}, 'order: unknown order "random": use relevance, date_desc or date_asc.')
        await err("search", {"query": "x", "limit": "ten"}, "limit must be a number.")

        # timeline
        line = await ok("timeline", {"anchor": mid, "before": 1, "after": 1})
        assert f"→ #{mid} " in line
        assert await ok("timeline", {"query": "kubernetes"}) == "Nothing to anchor on."
        await err("timeline", {}, "anchor or query is required.")
        await err("timeline", {"anchor": "one"}, "anchor must be a number.")

        # get_observations
        obs = await ok("get_observations", {"ids": [mid, 999999, gid]})
        assert "Staging deploys need the VPN" in obs and "Use pnpm, not npm, in the shop repo" in obs and "\n---\n" in obs
        await err("get_observations", {}, "ids is required.")
        await err("get_observations", {"ids": ["a"]}, "ids must be an array of numbers.")

        # session_start_context
        ctx = await ok("session_start_context", {"limit": 3})
        assert "# Memory for shop" in ctx and "## Pinned" in ctx and "Context economics:" in ctx
        await err("session_start_context", {"limit": "3"}, "limit must be a number.")

        # fact_history
        assert await ok("fact_history", {"subject": "shop"}) == 'No facts found for subject "shop".'
        await err("fact_history", {}, "subject is required.")
        await err("fact_history", {"subject": "shop", "as_of": "soon"}, 'as_of: cannot read the date "soon": use YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS][Z], epoch milliseconds or a relative time (yesterday, 3 days ago, 2w).')

        # rules: a client's rule waits for the user until `aletheia review accept`
        added = await ok("add_rule", {"then": "Run the tests before you commit", "when": "you are about to commit", "evidence_memory_ids": [mid]})
        assert added.startswith("Rule saved (r_") and added.endswith("). It reaches sessions once you accept it: aletheia review.")
        rid = added.split("(")[1].split(")")[0]
        assert await ok("add_rule", {"then": "Run the tests before you commit", "when": "you are about to commit"}) == f"That rule already waits for review ({rid})."
        assert await ok("list_rules", {}) == "No rules yet. add_rule adds one."
        pending = run([aletheia, "review", "list"], env)
        assert pending.returncode == 0 and f"rule (everywhere): when you are about to commit, Run the tests before you commit, from " in pending.stdout, pending
        # The name the SDK gave itself in initialize, which `aletheia trust` knows it by.
        client = pending.stdout.split(", from ")[1].split(" on ")[0]
        accepted = run([aletheia, "review", "accept", pending.stdout.split()[0]], env)
        assert accepted.returncode == 0, accepted.stderr
        rules = await ok("list_rules", {})
        assert rules.startswith("- When you are about to commit: Run the tests before you commit  [everywhere]  (id " + rid)
        await err("add_rule", {}, "then is required.")
        await err("add_rule", {"then": "x" * 801}, "then is over 800 characters.")
        await err("add_rule", {"then": "x", "evidence_memory_ids": [999999]}, "evidence_memory_ids: no memory #999999.")
        await err("add_rule", {"then": "x", "scopeTier": "galaxy"}, 'scopeTier: unknown "galaxy": use everywhere, project or situation.')
        # Confirming a rule is a rule write too: the user trusts this client to write them.
        assert run([aletheia, "trust", client, "write"], env).returncode == 0
        confirmed = await ok("confirm_rule", {"id": rid})
        assert confirmed.startswith(f"Confirmed rule {rid} on ") and confirmed.endswith("It stays as it is; only the date it was last checked changed.")
        await err("confirm_rule", {"id": "r_nope"}, 'No rule with id "r_nope". list_rules shows the ids.')
        await err("confirm_rule", {}, "id is required.")

        # dismiss / restore
        assert await ok("dismiss_memory", {"id": gid, "type": "memory", "reason": "duplicate " * 100}) == f"Dismissed memory #{gid}. It is hidden from search and context; restore_memory undoes this."
        assert "Staging" not in await ok("search", {"query": "staging VPN"})
        assert await ok("restore_memory", {"id": gid}) == f"Restored memory #{gid}."
        assert "Staging" in await ok("search", {"query": "staging VPN"})
        await err("dismiss_memory", {"id": 999999}, "No memory #999999.")
        await err("dismiss_memory", {"id": gid, "type": "planet"}, 'type: unknown type "planet": use memory, observation, fact or episode.')
        await err("restore_memory", {}, "id is required.")

        # work state
        items = ["ship docs", {"task": "test hooks", "done": False}, 3, True]
        w = await ok("work_state_write", {"list": " todo ", "items": items})
        assert w.startswith('Saved list "todo" with 4 item(s) as #')
        assert json.loads(await ok("work_state_read", {"list": "todo"})) == items
        w2 = await ok("work_state_write", {"list": "todo", "items": ["only this"]})
        assert w2.split("#")[1] == w.split("#")[1], "rewriting keeps the list's id"
        assert json.loads(await ok("work_state_read", {"list": "todo"})) == ["only this"]
        assert await ok("work_state_read", {"list": "nope"}) == 'No list named "nope".'
        await err("work_state_write", {"list": "todo"}, "items is required.")
        await err("work_state_write", {"list": "todo", "items": [[1]]}, "items[0] must be a string, number, boolean or plain object.")
        await err("work_state_read", {}, "list is required.")

        # unknown tool
        r = await c.call_tool("no_such_tool", {})
        assert r.is_error


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_python_sdk_lists_and_calls_every_tool(aletheia, server_env, mode):
    asyncio.run(exercise(aletheia, server_env, mode))
