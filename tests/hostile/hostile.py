#!/usr/bin/env python3
"""Hostile inputs through every command.

From one small valid file per format (the seeds: NAME.FORMAT in the seed
directory), make damaged copies: truncations and single-byte changes of the
header, and run each through plumb's commands (report with several views,
info, annotate, convert to every writer, diff against the seed; gprof and
report --exe for gmon.out). Each run must end with status 0, or 1 with a
message on standard error, within a time and a memory bound: never a
signal, a sanitizer report, a hang or a runaway allocation. A convert that
fails must leave no output behind.

Files NAME.case are hostile inputs of their own (the cases of issue 14),
run as they are. The damaged copies are a deterministic sample (every truncation and byte
change with --all): the same files and commands on every run.

usage: hostile.py PLUMB SEED_DIR WORK_DIR [--all] [--jobs N] [--max-rss MB]
prints one line per format: "ok FORMAT: N runs" or "FAIL FORMAT" then the
failing runs (command, status, stderr), at most 10 per format.
"""
import os
import shutil
import signal
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

# How much of each format is "header": where single bytes are changed.
HEADER_BYTES = {
    "folded": 24,       # the first line
    "callgrind": 64,    # version, creator, events lines
    "gmon": 40,         # the gmon header and the first record's tag and pcs
    "plumb": 100,       # SQLite's database header
    "aprof": 64,        # the header lines
    "pprof": 32,        # the first fields of the message
}
# The values a changed byte takes (beside flipping its low and high bit).
BYTE_VALUES = [0x00, 0xff, ord("\n"), ord("-"), ord("9")]

VIEWS = ["tree", "bottom-up", "lines", "files", "modules", "parts", "flame",
         "butterfly", "points", "inputs", "callers", "callees"]
# views of input-sensitive profiles only (status 2 on others: a usage error)
POINTS_VIEWS = ("points", "inputs")
WRITERS = [("plumb", "plumb"), ("callgrind", "cg"), ("pprof", "pb.gz"),
           ("aprof", "aprof"), ("folded", "folded"),
           ("speedscope", "speedscope.json")]

SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "runtime error:",
                   "UndefinedBehaviorSanitizer")


def mutants(data, fmt, every):
    """The damaged copies of one seed, (label, bytes) one at a time."""
    n = len(data)
    # every truncation of a small file; 4096 spread over a bigger one
    every_cut = range(n) if n <= 4096 else sorted(set(n * k // 4096 for k in range(4096)))
    cuts = list(every_cut) if every else sorted(set(
        [0, 1, 2, 4, 8, 16, 32, 64, 100]
        + [n * k // 9 for k in range(1, 9)] + [n - 1]))
    for c in cuts:
        if 0 <= c < n:
            yield "truncated to %d bytes" % c, data[:c]
    h = min(HEADER_BYTES[fmt], n)
    changes = []
    for i in range(h):
        b = data[i]
        vals = {b ^ 0x01, b ^ 0x80} | set(BYTE_VALUES)
        vals.discard(b)
        changes += [(i, v) for v in sorted(vals)]
    if not every:  # a spread of positions and values, the same every run
        step = max(1, len(changes) // 16)
        changes = changes[::step]
    for i, v in changes:
        yield "byte %d set to 0x%02x" % (i, v), data[:i] + bytes([v]) + data[i + 1:]


def commands(k, path, seed, fmt, exe, work):
    """The commands run on mutant number k: the fixed ones and, in turn,
    one view, one writer."""
    views = VIEWS if fmt == "aprof" else [v for v in VIEWS if v not in POINTS_VIEWS]
    view = views[k % len(views)]
    wname, wext = WRITERS[k % len(WRITERS)]
    exe_opt = []  # gmon: the executable is a.out next to the file
    sel = ["--select", "main"] if view in ("callers", "callees", "butterfly") else []
    out = os.path.join(work, "out%d.%s" % (k, wext))
    cmds = [
        (["info"] + exe_opt + [path], None),
        (["report"] + exe_opt + [path], None),
        (["report", "--view", view] + sel + exe_opt + [path], None),
        (["report", "--format", "json"] + exe_opt + [path], None) if k % 2 else
        (["annotate"] + exe_opt + [path], None),
        (["convert"] + exe_opt + [path, "--to", wname, "-o", out], out),
        (["diff"] + exe_opt + [seed, path], None),
    ]
    if fmt == "gmon":
        cmds.append((["gprof", "-b", exe, path], None))
    elif k % 3 == 0:  # standard input: a pipe, format found on a prefix
        cmds.append((["report", "-", "<", path], None))
    return cmds


def run_one(plumb, args, out, max_rss_kb, timeout, cwd):
    stdin = subprocess.DEVNULL
    if args[-2:-1] == ["<"]:  # fed through a pipe
        with open(args[-1], "rb") as f:
            data = f.read()
        args, stdin = args[:-2], subprocess.PIPE
    p = subprocess.Popen([plumb] + args, stdin=stdin,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         cwd=cwd, start_new_session=True)
    timer = threading.Timer(timeout, lambda: os.killpg(p.pid, signal.SIGKILL))
    timer.start()
    if stdin == subprocess.PIPE:
        def feed():
            try:
                p.stdin.write(data)
                p.stdin.close()
            except OSError:
                pass  # plumb stopped reading: refused early
        threading.Thread(target=feed, daemon=True).start()
    err = p.stderr.read().decode("utf-8", "replace")
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = 0  # reaped here, so that Popen does not wait again
    timed_out = not timer.is_alive()
    timer.cancel()
    problems = []
    if timed_out:
        problems.append("killed after %d s (a hang?)" % timeout)
    elif os.WIFSIGNALED(status):
        problems.append("killed by signal %d" % os.WTERMSIG(status))
    else:
        rc = os.WEXITSTATUS(status)
        if rc == 2 and args[1:2] == ["--view"] and "needs performance points" in err:
            pass  # a damaged aprof file left without points: that view is refused
        elif rc not in (0, 1):
            problems.append("exit status %d (expected 0 or 1)" % rc)
        elif rc == 1 and not err.strip():
            problems.append("exit status 1 without a message")
        elif rc == 1 and out and os.path.exists(out):
            problems.append("failed but left %s behind" % out)
    if any(m in err for m in SANITIZER_MARKS):
        problems.append("sanitizer report")
    if ru.ru_maxrss > max_rss_kb:
        problems.append("used %d MB (bound: %d MB)" % (ru.ru_maxrss // 1024,
                                                      max_rss_kb // 1024))
    if out and os.path.exists(out):
        os.unlink(out)
    return problems, err


def main():
    argv = sys.argv[1:]
    every = "--all" in argv
    jobs, max_rss = 2, 256
    rest = []
    i = 0
    while i < len(argv):
        if argv[i] == "--all":
            pass
        elif argv[i] == "--jobs":
            i += 1
            jobs = int(argv[i])
        elif argv[i] == "--max-rss":
            i += 1
            max_rss = int(argv[i])
        else:
            rest.append(argv[i])
        i += 1
    plumb, seeds, work = rest
    plumb = os.path.abspath(plumb)
    exe = os.path.join(seeds, "gmon.exe")
    failures = {}
    counts = {}

    def go(t):
        name, label, args, out = t
        problems, err = run_one(plumb, args, out, max_rss * 1024, 60, work)
        return name, label, args, problems, err

    def batches():
        """The commands of one damaged copy at a time: its file exists
        while they run (a kept failing copy aside), so that --all needs
        neither the memory nor the disk of every copy at once."""
        for name in sorted(os.listdir(seeds)):
            fmt = name.rsplit(".", 1)[-1]
            if fmt not in HEADER_BYTES and fmt != "case":
                continue
            seed = os.path.join(seeds, name)
            with open(seed, "rb") as f:
                data = f.read()
            d = os.path.join(work, name)
            os.makedirs(d, exist_ok=True)
            if fmt == "gmon":  # plumb's default executable, as gprof's
                shutil.copy(exe, os.path.join(d, "a.out"))
                shutil.copy(exe, os.path.join(seeds, "a.out"))
            # a .case file is a hostile input of its own, run as it is
            copies = [("as it is", data)] if fmt == "case" else mutants(data, fmt, every)
            for k, (label, blob) in enumerate(copies):
                if fmt == "case":
                    k = sum(name.encode())  # its own view and writer
                path = os.path.join(d, "m%d" % k)
                with open(path, "wb") as f:
                    f.write(blob)
                yield path, [(name, "%s (%s)" % (label, path), args, out)
                             for args, out in commands(k, path, seed, fmt,
                                                       exe if fmt == "gmon" else None, d)]

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for path, tasks in batches():
            bad = False
            for name, label, args, problems, err in ex.map(go, tasks):
                counts[name] = counts.get(name, 0) + 1
                if problems:
                    bad = True
                    failures.setdefault(name, []).append((label, args, problems, err))
            if not bad:
                os.unlink(path)
    status = 0
    for name in sorted(counts):
        if name not in failures:
            print("ok %s: %d runs" % (name, counts[name]))
            continue
        status = 1
        fl = failures[name]
        print("FAIL %s: %d of %d runs" % (name, len(fl), counts[name]))
        for label, args, problems, err in fl[:10]:
            print("  %s" % label)
            print("    plumb %s: %s" % (" ".join(args), "; ".join(problems)))
            for line in err.strip().splitlines()[-6:]:
                print("      " + line)
    return status


if __name__ == "__main__":
    sys.exit(main())
