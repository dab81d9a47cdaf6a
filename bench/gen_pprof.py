#!/usr/bin/env python3
"""Generate a deterministic pprof profile (gzipped profile.proto) for benchmarks.

    gen_pprof.py OUT [DISTINCT] [LOCATIONS] [SEED]

Defaults: 200,000 distinct stacks (one sample each), 80,000 locations, seed 1:
the shape of the synthetic profile research/landscape.md timed `go tool pprof`
on. Like a Go CPU profile: sample types samples/count and cpu/nanoseconds, a
period of 10 ms, mappings with build ids (the program and five libraries),
about 3,000 functions with system names, files and start lines, locations
with addresses and lines, one in eight with an inlined frame (two lines).
Stacks are random walks over a call graph of the functions, depths 5 to 40,
a new stack usually extending a prefix of an earlier one (as in real
profiles), every stack distinct. Written with a small protobuf encoder of its
own: nothing to install.
"""
import gzip
import random
import sys


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def key(field, wire):
    return varint(field << 3 | wire)


def f_int(field, n):
    return key(field, 0) + varint(n) if n else b""


def f_bytes(field, data):
    return key(field, 2) + varint(len(data)) + data


def f_packed(field, nums):
    if not nums:
        return b""
    return f_bytes(field, b"".join(varint(n) for n in nums))


WORDS = ("parse read write hash lookup insert update flush scan match emit "
         "alloc free copy merge split sort encode decode compress send recv "
         "poll wait lock unlock open close load store init fini visit walk").split()
NOUNS = ("header buffer table entry node tree list queue page block frame "
         "record token symbol string stream socket request response config").split()
PKGS = ("app", "core", "net", "db", "util", "io", "gfx", "rt")


def main():
    out = sys.argv[1]
    distinct = int(sys.argv[2]) if len(sys.argv) > 2 else 200000
    nlocs = int(sys.argv[3]) if len(sys.argv) > 3 else 80000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)

    strings = [""]
    index = {"": 0}

    def s(text):
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return index[text]

    body = bytearray()
    # sample types, period type
    for t, u in (("samples", "count"), ("cpu", "nanoseconds")):
        body += f_bytes(1, f_int(1, s(t)) + f_int(2, s(u)))
    # mappings: the program, then libraries
    mods = [("/usr/bin/server", 0x400000)] + [
        ("/usr/lib/x86_64-linux-gnu/lib%s.so.1" % p, 0x7f0000000000 + i * 0x1000000)
        for i, p in enumerate(("c", "m", "z", "ssl", "crypto"))]
    for i, (path, start) in enumerate(mods):
        body += f_bytes(3, f_int(1, i + 1) + f_int(2, start) + f_int(3, start + 0x800000) +
                        f_int(5, s(path)) + f_int(6, s("%040x" % rng.getrandbits(160))) +
                        f_int(7, 1) + f_int(8, 1) + f_int(9, 1))
    # functions: name, system name, file, start line; their module
    nfuncs = min(nlocs, max(3000, nlocs // 27))
    funcs = []
    for i in range(nfuncs):
        name = "%s.%s_%s_%d" % (rng.choice(PKGS), rng.choice(WORDS), rng.choice(NOUNS), i)
        mod = 0 if i < nfuncs * 3 // 4 else 1 + i % (len(mods) - 1)
        src = "%s/%s.go" % (name.split(".")[0], rng.choice(NOUNS))
        start = rng.randrange(10, 5000)
        funcs.append((mod, start))
        body += f_bytes(5, f_int(1, i + 1) + f_int(2, s(name)) + f_int(3, s(name + ".abi0")) +
                        f_int(4, s(src)) + f_int(5, start))
    # locations: addresses in their function's module, lines after its start
    by_mod = [[i for i, f in enumerate(funcs) if f[0] == m] for m in range(len(mods))]
    locs_of = [[] for _ in range(nfuncs)]
    loc_fn = [0]
    for i in range(nlocs):
        fn = i % nfuncs if i < nfuncs else rng.randrange(nfuncs)
        mod, start = funcs[fn]
        locs_of[fn].append(i + 1)
        loc_fn.append(fn)
        addr = mods[mod][1] + 0x1000 + i * 16
        line = f_bytes(4, f_int(1, fn + 1) + f_int(2, start + rng.randrange(1, 200)))
        if i % 8 == 7:  # an inlined callee first, then the function it is in
            inl = rng.choice(by_mod[mod])  # of the same program or library
            line = f_bytes(4, f_int(1, inl + 1) + f_int(2, funcs[inl][1] + 3)) + line
        body += f_bytes(4, f_int(1, i + 1) + f_int(2, mod + 1) + f_int(3, addr) + line)
    # a call graph: each function calls a few others
    callees = [[rng.randrange(nfuncs) for _ in range(rng.randrange(2, 9))]
               for _ in range(nfuncs)]
    roots = [rng.randrange(nfuncs) for _ in range(8)]
    seen = set()
    stacks = []
    while len(stacks) < distinct:
        if stacks and rng.random() < 0.9:
            base = rng.choice(stacks[-2000:])
            path = list(base[:rng.randrange(1, len(base) + 1)])
        else:
            path = [rng.choice(locs_of[rng.choice(roots)])]
        depth = rng.randrange(max(5, len(path)), 41)
        while len(path) < depth:
            fn = rng.choice(callees[loc_fn[path[-1]]])
            path.append(rng.choice(locs_of[fn]))
        t = tuple(path)
        if t in seen:
            continue
        seen.add(t)
        stacks.append(t)
    for t in stacks:
        n = 1 + int(rng.paretovariate(1.5)) % 50
        body += f_bytes(2, f_packed(1, list(reversed(t))) + f_packed(2, [n, n * 10000000]))
    body += f_int(9, 1700000000 * 10**9) + f_int(10, 30 * 10**9)
    body += f_bytes(11, f_int(1, s("cpu")) + f_int(2, s("nanoseconds"))) + f_int(12, 10000000)
    # the string table after the functions, as Go writes it (fields in
    # number order but for the ones after it)
    table = b"".join(f_bytes(6, t.encode()) for t in strings)
    with gzip.open(out, "wb", compresslevel=6) as f:
        f.write(bytes(body) + table)


if __name__ == "__main__":
    main()
