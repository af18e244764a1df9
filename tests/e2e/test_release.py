"""The release as a user gets it: this machine's archive, built by dist (scripts/test runs
`dist build` and names the output folder in ALETHEIA_DIST_DIR), fetched over HTTP on loopback by
the release's own install script, checked against sha256.sum, installed under a prefix, then run:
--version, a hook, a search, the manual page and the bash completion. An archive that does not
match its checksum installs nothing.
"""
import functools
import hashlib
import http.server
import json
import os
import pathlib
import shutil
import subprocess
import tarfile
import threading
import tomllib

import pytest

from conftest import need, run

ROOT = pathlib.Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "Cargo.toml").read_text())["package"]["version"]


def host_archive(files):
    """The archive scripts/test built: this machine's (dist names it for the host's target)."""
    archives = sorted(p.name for p in files.glob("aletheia-mem-*.tar.xz"))
    assert len(archives) == 1, f"expected this machine's archive alone in {files}: {archives}"
    return archives[0]


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
    assert host_archive(files) in (files / "sha256.sum").read_text(), "the checksums do not list the archive"
    prefix = tmp_path / "prefix"
    done = install(files, url, prefix)
    assert done.returncode == 0, done.stderr
    assert f"Installed aletheia {VERSION} (commit " in done.stdout, done.stdout
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
    # The hook binary the hosts' commands run sits beside it, and stores into the same place.
    payload = json.dumps({"session_id": "s1", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                          "prompt": "the ledger export runs nightly at two"})
    hook = subprocess.run([str(prefix / "bin" / "aletheia-hook"), "hook", "claude-code", "UserPromptSubmit"],
                          input=payload, env=env, capture_output=True, text=True, timeout=60)
    assert hook.returncode == 0 and hook.stderr == "", hook.stderr
    found = run([str(bin_), "search", "ledger nightly", "--json"], env)
    assert [json.loads(line)["title"] for line in found.stdout.splitlines()] == ["the ledger export runs nightly at two"], found.stdout

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
    name = host_archive(files)
    archive = files / name
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0xFF
    archive.write_bytes(bytes(data))
    prefix = tmp_path / "prefix"
    done = install(files, url, prefix)
    assert done.returncode != 0
    assert f"{name} does not match its checksum" in done.stderr, done.stderr
    assert "nothing was installed" in done.stderr
    assert not (prefix / "bin" / "aletheia").exists()
    assert not prefix.exists() or not any(prefix.rglob("*"))


def test_an_address_without_a_release_says_so(release, tmp_path):
    files, url = release
    done = install(files, url + "/no-such-release", tmp_path / "prefix")
    assert done.returncode != 0
    assert done.stderr.startswith("aletheia install: cannot fetch sha256.sum from "), done.stderr
    assert done.stderr.count("\n") == 1


def test_a_binary_that_cannot_run_here_installs_nothing(release, tmp_path):
    """An archive that checks out but holds a binary this machine cannot run (another libc, a
    wrong --target) is refused before anything is replaced."""
    files, url = release
    name = host_archive(files)
    top = name.removesuffix(".tar.xz")
    broken = tmp_path / top
    (broken / "completions").mkdir(parents=True)
    (broken / "aletheia").write_text("#!/bin/sh\necho 'cannot execute binary file: Exec format error' >&2\nexit 126\n")
    (broken / "aletheia").chmod(0o755)
    with tarfile.open(files / name, "w:xz") as tar:
        tar.add(broken, arcname=top)
    digest = hashlib.sha256((files / name).read_bytes()).hexdigest()
    (files / "sha256.sum").write_text(f"{digest} *{name}\n")
    prefix = tmp_path / "prefix"
    done = install(files, url, prefix)
    assert done.returncode != 0
    assert f"the binary in {name} does not run here" in done.stderr, done.stderr
    assert "Exec format error" in done.stderr and "nothing was installed" in done.stderr
    assert not (prefix / "bin" / "aletheia").exists()


def test_a_prefix_that_cannot_be_written_says_so_in_one_line(release, tmp_path):
    files, url = release
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    done = install(files, url, blocker / "prefix")
    assert done.returncode != 0
    assert done.stderr.startswith(f"aletheia install: cannot write {blocker}/prefix/bin/aletheia ("), done.stderr
    assert "Not a directory" in done.stderr and "--prefix DIR" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


def test_help_lists_the_options_even_when_the_script_is_piped_into_sh():
    script = (ROOT / "release" / "install.sh").read_text()
    done = subprocess.run(["sh", "-s", "--", "--help"], input=script, capture_output=True, text=True,
                          timeout=30, env={"PATH": os.environ["PATH"]})
    assert done.returncode == 0, done.stderr
    for option in ("--from URL|DIR", "--prefix DIR", "--target TRIPLE"):
        assert option in done.stdout, done.stdout
