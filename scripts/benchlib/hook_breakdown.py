"""Where a hook run's time goes, phase by phase, beside the floor program's.

Both programs print the wall-clock time of each named step they reach when ALETHEIA_HOOK_PHASES
is set (`src/stall.rs`, `examples/hook_floor.rs`). This module spawns them alternately, takes the
time just before each spawn and just after each reap, and splits every run into the phases
below: exec is spawn to `main` (the kernel, the loader, the runtime), exit is the last step to the
reap (freeing the process). Times on a shared machine move with the load; the counts beside them
do not: minor page faults and CPU time come from wait4, instructions from valgrind's callgrind when
it is installed (perf's hardware counters are often missing in a virtual machine).
"""
import os, re, shutil, statistics, subprocess, time

# (phase, the step that ends it). A program that has no such step spends nothing in the phase.
PHASES = [("exec (spawn to main)", "main"), ("read the payload", "read"), ("parse", "parse"),
          ("redact", "redact"), ("start the watchdog", "start"), ("open the store", "opened"),
          ("check the spool", "write"), ("insert and commit", "written"), ("close the store", "closed"),
          ("answer the host", "end")]
EXIT = "exit (to reaped)"


def run(argv, payload, env):
    """One run with its steps timed: (phases in ms, wall ms, CPU ms, minor faults)."""
    rin, win = os.pipe()
    rout, wout = os.pipe()
    rerr, werr = os.pipe()
    env = dict(env, ALETHEIA_HOOK_PHASES="1")
    # The payload waits in the pipe before the spawn (it is far under a pipe's 64 KiB), so the
    # read phase times the program's read, not this process getting round to writing.
    assert len(payload) < 65536
    os.write(win, payload)
    os.close(win)
    t0 = time.time_ns()
    pid = os.posix_spawn(argv[0], argv, env,
                         file_actions=[(os.POSIX_SPAWN_DUP2, rin, 0), (os.POSIX_SPAWN_DUP2, wout, 1),
                                       (os.POSIX_SPAWN_DUP2, werr, 2), (os.POSIX_SPAWN_CLOSE, rout),
                                       (os.POSIX_SPAWN_CLOSE, rerr)])
    for fd in (rin, wout, werr):
        os.close(fd)
    # Both outputs are a line or two: stdout read to its end cannot block on a full stderr.
    _, err = read_all(rout), read_all(rerr)
    _, status, ru = os.wait4(pid, 0)
    t1 = time.time_ns()
    assert os.waitstatus_to_exitcode(status) == 0, f"{argv[0]} exited non-zero"
    line = next((l for l in err.decode(errors="replace").splitlines() if l.startswith("aletheia phases: ")), None)
    assert line, f"{argv[0]} printed no phases: {err[-300:]!r}"
    marks = {}
    for part in line.split(": ", 1)[1].split():
        name, ns = part.split("=")
        marks.setdefault(name, int(ns))
    phases, prev = {}, t0
    for label, step in PHASES:
        if step in marks:
            phases[label] = (marks[step] - prev) / 1e6
            prev = marks[step]
        else:
            phases[label] = 0.0
    phases[EXIT] = (t1 - prev) / 1e6
    return phases, (t1 - t0) / 1e6, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_minflt


def read_all(fd):
    chunks = []
    while True:
        b = os.read(fd, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(fd)
    return b"".join(chunks)


def instructions(argv, payload, env, runs=3):
    """Median instructions of `runs` runs under callgrind, or None without valgrind."""
    if not shutil.which("valgrind"):
        return None
    # Valgrind runs a program some fifty times slower: the hook's deadline must not cut it short.
    env = dict(env, ALETHEIA_HOOK_DEADLINE_MS="600000")
    counts = []
    for _ in range(runs):
        p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"] + argv,
                           input=payload(), env=env, capture_output=True)
        m = re.search(rb"Collected : (\d+)", p.stderr)
        if not m:
            return None
        counts.append(int(m.group(1)))
    return statistics.median(counts)


def measure(hook_argv, hook_env, floor_argv, payload, iters):
    """Run the floor and the hook alternately `iters` times each, then each a few times under
    callgrind; the medians of every phase and total for both. `payload()` gives a payload no
    run has stored yet, so every hook run inserts."""
    runs = {"floor": [], "hook": []}
    for _ in range(iters):
        runs["floor"].append(run(floor_argv, payload(), os.environ))
        runs["hook"].append(run(hook_argv, payload(), hook_env))
    out = {}
    for name, rs in runs.items():
        out[name] = {
            "phases": {label: statistics.median(r[0][label] for r in rs) for label, _ in PHASES + [(EXIT, None)]},
            "wall": statistics.median(r[1] for r in rs),
            "cpu": statistics.median(r[2] for r in rs),
            "faults": statistics.median(r[3] for r in rs),
        }
    out["floor"]["instructions"] = instructions(floor_argv, payload, os.environ)
    out["hook"]["instructions"] = instructions(hook_argv, payload, hook_env)
    out["iters"] = iters
    return out


def table(b, label):
    """Markdown lines for one measurement: the phases, then the totals and their ratios."""
    f, h = b["floor"], b["hook"]
    lines = [f"{label} ({b['iters']} runs of each, alternating; medians):", "",
             "| phase | floor ms | hook ms | hook - floor ms |", "|---|---:|---:|---:|"]
    for p in [l for l, _ in PHASES] + [EXIT]:
        lines.append(f"| {p} | {f['phases'][p]:.3f} | {h['phases'][p]:.3f} | {h['phases'][p] - f['phases'][p]:+.3f} |")
    lines.append(f"| **whole run (median)** | **{f['wall']:.3f}** | **{h['wall']:.3f}** | "
                 f"**{h['wall'] - f['wall']:+.3f}** ({h['wall'] / f['wall']:.2f}x) |")
    lines += ["", "| count | floor | hook | ratio |", "|---|---:|---:|---:|",
              f"| CPU ms (user + system) | {f['cpu']:.3f} | {h['cpu']:.3f} | {h['cpu'] / f['cpu']:.2f}x |",
              f"| minor page faults | {f['faults']:.0f} | {h['faults']:.0f} | {h['faults'] / f['faults']:.2f}x |"]
    if f["instructions"] and h["instructions"]:
        lines.append(f"| instructions (callgrind) | {f['instructions']:,.0f} | {h['instructions']:,.0f} | "
                     f"{h['instructions'] / f['instructions']:.2f}x |")
    else:
        lines.append("| instructions | not measured: valgrind is not installed | | |")
    return lines
