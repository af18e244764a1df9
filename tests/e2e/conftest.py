"""Shared fixtures for the end-to-end tests against real MCP clients.

scripts/test installs the clients and names them in the environment:
ALETHEIA_BIN (the binary under test), ALETHEIA_NODE_DIR (Node 22's bin folder),
ALETHEIA_NPM_BIN (node_modules/.bin with claude and mcp-inspector).
"""
import os
import pathlib
import subprocess

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
