#!/usr/bin/env python3
"""Generate a deterministic folded-stacks file for benchmarks.

    gen_folded.py OUT [LINES] [DISTINCT] [SEED]

Defaults: 1,000,000 lines, 200,000 distinct stacks, seed 1. The stacks are
random walks over a synthetic call graph of about 3,000 functions: C names,
C++ names with spaces and templates, library functions with a "[module]"
suffix and kernel functions with stackcollapse-perf's "_[k]" suffix. A new
stack usually extends a prefix of an earlier one, so that stacks share
prefixes as in real profiles; depths are 5 to 40 (about 20 on average).
Every distinct stack appears at least once; the other lines repeat stacks
with a skewed popularity, and the lines are shuffled (as when several
collapsed files are concatenated), so the reader cannot rely on order.
"""
import random
import sys

WORDS = ("parse read write hash lookup insert update flush scan match emit "
         "alloc free copy merge split sort encode decode compress send recv "
         "poll wait lock unlock open close load store init fini visit walk "
         "eval apply reduce fold render draw layout measure resolve").split()
NOUNS = ("header buffer table entry node tree list queue page block frame "
         "record token symbol string stream socket request response config "
         "cache index segment chunk packet event timer worker task job").split()
NAMESPACES = ("app", "core", "net", "db", "util", "io", "gfx", "rt")
TYPES = ("int", "long", "unsigned long", "double", "char const*",
         "std::string const&", "std::vector<int, std::allocator<int> > const&")
LIBS = ("libc.so.6", "libm.so.6", "libstdc++.so.6", "libz.so.1", "libssl.so.3",
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3")
KERNEL = ("entry_SYSCALL_64_after_hwframe", "do_syscall_64", "__x64_sys_read",
          "__x64_sys_write", "ksys_read", "ksys_write", "vfs_read", "vfs_write",
          "new_sync_read", "ext4_file_read_iter", "filemap_read", "copy_page_to_iter",
          "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault",
          "handle_mm_fault", "__handle_mm_fault", "do_anonymous_page",
          "clear_page_erms", "schedule", "__schedule", "finish_task_switch",
          "tcp_sendmsg", "tcp_recvmsg", "sock_read_iter", "futex_wait")


def make_functions(rng):
    """About 3,000 frames as they appear in folded files, by kind."""
    user, lib, kern = [], [], [k + "_[k]" for k in KERNEL]
    for i in range(1600):
        w, n = rng.choice(WORDS), rng.choice(NOUNS)
        user.append(f"{w}_{n}" if i < 200 else f"{w}_{n}_{i}")
    for i in range(1100):
        ns, cls = rng.choice(NAMESPACES), rng.choice(NOUNS).capitalize()
        args = ", ".join(rng.choice(TYPES) for _ in range(rng.randint(0, 3)))
        user.append(f"{ns}::{cls}{i}::{rng.choice(WORDS)}({args})")
    for lib_name in LIBS:
        for w in rng.sample(WORDS, 30):
            lib.append(f"{w}_{lib_name.split('/')[-1].split('.')[0]} [{lib_name}]")
        lib.append(f"[{lib_name}]")
    return user, lib, kern


def make_graph(rng, user, lib, kern):
    """Callees per function: user code calls user code and libraries,
    libraries call later libraries and the kernel, the kernel calls later
    kernel functions; the last ones are leaves, so the library and kernel
    ends of a stack stay a few frames long, as in real profiles."""
    callees = {}
    for f in user:
        callees[f] = (rng.sample(user, rng.randint(3, 8)) +
                      rng.sample(lib, 1 if rng.random() < 0.4 else 0))
    for i, f in enumerate(lib):
        later = lib[i + 1:i + 40]
        callees[f] = (rng.sample(later, min(len(later), rng.randint(0, 2))) +
                      rng.sample(kern[:6], rng.randint(0, 1)))
    for i, f in enumerate(kern):
        later = kern[i + 1:]
        callees[f] = rng.sample(later, min(len(later), rng.randint(0, 2)))
    return callees


def walk(rng, callees, stack, depth):
    while len(stack) < depth:
        nxt = callees[stack[-1]]
        if not nxt:
            break
        stack.append(rng.choice(nxt))
    return stack


def make_stacks(rng, distinct, callees, roots):
    seen, stacks = set(), []
    while len(stacks) < distinct:
        depth = min(40, max(5, int(rng.gauss(24, 8))))
        if stacks and rng.random() < 0.9:
            base = rng.choice(stacks)
            cut = rng.randint(1, min(len(base), depth) - 1) if min(len(base), depth) > 1 else 1
            stack = walk(rng, callees, list(base[:cut]), depth)
        else:
            stack = walk(rng, callees, [rng.choice(roots)], depth)
        if len(stack) < 5:
            continue
        key = ";".join(stack)
        if key not in seen:
            seen.add(key)
            stacks.append(stack)
    return [";".join(s) for s in stacks]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    lines = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    distinct = int(sys.argv[3]) if len(sys.argv) > 3 else 200_000
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    if distinct > lines or distinct < 1:
        sys.exit("gen_folded.py: need 1 <= DISTINCT <= LINES")
    rng = random.Random(seed)
    user, lib, kern = make_functions(rng)
    callees = make_graph(rng, user, lib, kern)
    # roots: a program's main, reached directly or through the C runtime,
    # and a thread's start routine
    for chain in (["_start", "__libc_start_main", "main"], ["start_thread", "worker_main"]):
        for a, b in zip(chain, chain[1:]):
            callees[a] = [b]
        callees[chain[-1]] = rng.sample(user, 12)
    roots_split = ["main", "_start", "start_thread"]
    stacks = make_stacks(rng, distinct, callees, roots_split)
    order = list(range(distinct))
    order += [int(distinct * rng.random() ** 3) for _ in range(lines - distinct)]
    rng.shuffle(order)
    with open(out, "w", encoding="utf-8") as fp:
        buf = []
        for i in order:
            count = 1 + int(rng.expovariate(1 / 40))
            buf.append(f"{stacks[i]} {count}\n")
            if len(buf) >= 10000:
                fp.write("".join(buf))
                buf.clear()
        fp.write("".join(buf))


if __name__ == "__main__":
    main()
