"""Shared fixtures for the end-to-end tests against real MCP clients.

scripts/test installs the clients and names them in the environment:
ALETHEIA_BIN (the binary under test), ALETHEIA_NODE_DIR (Node 22's bin folder),
ALETHEIA_NPM_BIN (node_modules/.bin with claude and mcp-inspector).
"""
import contextlib
import os
import pathlib
import re
import subprocess
import threading

import pytest


def need(name):
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: run the suite through scripts/test")
    return value


@pytest.fixture
def aletheia():
    return need("ALETHEIA_BIN")


@pytest.fixture
def home(tmp_path):
    """A temporary HOME with a project folder and a data directory."""
    (tmp_path / "shop" / ".git").mkdir(parents=True)
    return tmp_path


@pytest.fixture
def server_env(home):
    return {"ALETHEIA_DATA_DIR": str(home / "data"), "ALETHEIA_CWD": str(home / "shop")}


@pytest.fixture
def node_env(home):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ALETHEIA_")}
    env["HOME"] = str(home)
    env["PATH"] = need("ALETHEIA_NODE_DIR") + os.pathsep + need("ALETHEIA_NPM_BIN") + os.pathsep + env.get("PATH", "")
    return env


def run(argv, env, cwd=None, timeout=120):
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)


@contextlib.contextmanager
def serving(argv, env, cwd):
    """Start `aletheia server` or `aletheia hub` (argv with `--port 0`) and yield the base URL it
    prints; stderr is read for as long as it runs, so it never blocks on a full pipe."""
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    found = threading.Event()
    url, lines = [], []

    def read():
        for line in proc.stderr:
            lines.append(line)
            m = re.search(r"http://127\.0\.0\.1:\d+", line)
            if m and not found.is_set():
                url.append(m.group(0))
                found.set()
        found.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert found.wait(30) and url, f"{argv[1]} printed no address:\n" + "".join(lines)
        yield url[0]
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
