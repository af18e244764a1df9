"""The release as a user gets it: this machine's archive, built by dist (scripts/test runs
`dist build` and names the output folder in ALETHEIA_DIST_DIR), fetched over HTTP on loopback by
the release's own install script, checked against sha256.sum, installed under a prefix, then run:
--version, a hook, a search, the manual page and the bash completion. An archive that does not
match its checksum installs nothing.
"""
import functools
import http.server
import json
import os
import pathlib
import platform
import shutil
import subprocess
import threading

import pytest

from conftest import need, run

TARGET = {"x86_64": "x86_64-unknown-linux-gnu", "aarch64": "aarch64-unknown-linux-gnu"}[platform.machine()]
ARCHIVE = f"aletheia-mem-{TARGET}.tar.xz"


@pytest.fixture
def release(tmp_path):
    """A copy of the release's files (so a test may spoil one), served on a loopback port."""
    files = tmp_path / "release"
    shutil.copytree(need("ALETHEIA_DIST_DIR"), files)
    handler = functools.partial(_Quiet, directory=str(files))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield files, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def install(files, url, prefix):
    # The host's archive only (no musl build here): the script falls back to it by itself.
    env = {"PATH": os.environ["PATH"], "HOME": str(prefix.parent)}
    return run(["sh", str(files / "install.sh"), "--from", url, "--prefix", str(prefix)], env)


def test_the_release_installs_and_runs(release, tmp_path):
    files, url = release
    assert ARCHIVE in (files / "sha256.sum").read_text(), "the release's checksums do not list this machine's archive"
    prefix = tmp_path / "prefix"
    done = install(files, url, prefix)
    assert done.returncode == 0, done.stderr
    assert "Installed aletheia 0.1.0 (commit " in done.stdout, done.stdout
    assert f"Add {prefix}/bin to your PATH." in done.stdout

    bin_ = prefix / "bin" / "aletheia"
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "ALETHEIA_DATA_DIR": str(tmp_path / "data")}
    version = run([str(bin_), "--version"], env)
    assert version.returncode == 0 and "store schema" in version.stdout, version.stdout + version.stderr

    payload = json.dumps({"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                          "prompt": "the invoice worker retries with exponential backoff"})
    hook = subprocess.run([str(bin_), "hook", "claude-code", "UserPromptSubmit"], input=payload, env=env,
                          capture_output=True, text=True, timeout=60)
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
    found = run([str(bin_), "search", "invoice backoff", "--json"], env)
    assert found.returncode == 0, found.stderr
    hits = [json.loads(line) for line in found.stdout.splitlines()]
    assert [h["title"] for h in hits] == ["the invoice worker retries with exponential backoff"], found.stdout

    share = prefix / "share"
    page = run(["man", "-l", str(share / "man" / "man1" / "aletheia-search.1")],
               dict(env, MANPAGER="cat", MANWIDTH="100"))
    assert page.returncode == 0 and "aletheia-search" in page.stdout, page.stdout + page.stderr
    completion = share / "bash-completion" / "completions" / "aletheia"
    loaded = run(["bash", "--norc", "--noprofile", "-c", f"source {completion} && complete -p aletheia"], env)
    assert loaded.returncode == 0 and loaded.stdout.strip().endswith(" aletheia"), loaded.stdout + loaded.stderr
    assert (share / "zsh" / "site-functions" / "_aletheia").is_file()
    assert (share / "fish" / "vendor_completions.d" / "aletheia.fish").is_file()


def test_an_archive_that_fails_its_checksum_installs_nothing(release, tmp_path):
    files, url = release
    archive = files / ARCHIVE
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0xFF
    archive.write_bytes(bytes(data))
    prefix = tmp_path / "prefix"
    done = install(files, url, prefix)
    assert done.returncode != 0
    assert f"{ARCHIVE} does not match its checksum" in done.stderr, done.stderr
    assert "nothing was installed" in done.stderr
    assert not (prefix / "bin" / "aletheia").exists()
    assert not prefix.exists() or not any(prefix.rglob("*"))


def test_an_address_without_a_release_says_so(release, tmp_path):
    files, url = release
    done = install(files, url + "/no-such-release", tmp_path / "prefix")
    assert done.returncode != 0
    assert done.stderr.startswith("aletheia install: cannot fetch sha256.sum from "), done.stderr
    assert done.stderr.count("\n") == 1
