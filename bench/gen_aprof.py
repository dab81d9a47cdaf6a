#!/usr/bin/env python3
"""Generate a deterministic aprof report (version 6) for benchmarks.

    gen_aprof.py OUT [POINTS] [ROUTINES] [SEED] [rms|drms]

Defaults: 1,000,000 performance points (p lines) over 3,000 routines, seed
1, input metric rms (12 fields a point; drms adds the 6-field tail of
aprof 0.2.x, 18 fields): about 100 MB. The layout is the one aprof 0.2.1
writes (research/aprof.md section 1.3): three comment lines, v k e m i t a
f, then per routine an r line, a u line for C++ routines (mangled name),
and its p lines. Routines come in hash-table order (shuffled), points of a
routine in no order; a few routines have no points.

Routine names are C names and demangled C++ names with spaces, templates,
commas and parentheses; objects are the executable, libraries and NONE.
Points per routine are skewed (a few routines hold tens of thousands of
input sizes, most a few hundred or less). The cost per call of a routine
follows a + b*f(n) for a growth class among 1, log n, n, n log n, n^2, n^3,
with a few percent of noise per call; min, max, sum, sum of squares (kept
modulo 2^64, as aprof does), real sum (smaller than the sum for recursive
routines, never below the self sum), self costs and, for drms, syscall and
thread read counts keep the invariants of research/aprof.md section 1.6.
k is the sum of the self costs plus a little (main's cost). The same arguments always give the same file.
"""
import math
import random
import sys

WORDS = ("parse read write hash lookup insert update flush scan match emit "
         "alloc free copy merge split sort encode decode compress send recv "
         "poll wait lock unlock open close load store init visit walk "
         "eval apply reduce fold render draw layout measure resolve").split()
NOUNS = ("header buffer table entry node tree list queue page block frame "
         "record token symbol string stream socket request response config "
         "cache index segment chunk packet event timer worker task job").split()
NAMESPACES = ("app", "core", "net", "db", "util", "io", "gfx", "rt")
# (demangled, mangled) parameter types
TYPES = (("int", "i"), ("long", "l"), ("unsigned long", "m"), ("double", "d"),
         ("char const*", "PKc"), ("std::string const&", "RKSs"),
         ("std::vector<int, std::allocator<int> > const&", "RKSt6vectorIiSaIiEE"))
EXE = "/usr/local/bin/app"
LIBS = ("/usr/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libz.so.1")
# growth classes: f(n), and the share of routines of each
CLASSES = (("1", lambda n: 1.0, 0.25), ("log n", lambda n: math.log2(n + 1), 0.15),
           ("n", lambda n: float(n), 0.30), ("n log n", lambda n: n * math.log2(n + 1), 0.15),
           ("n^2", lambda n: float(n) * n, 0.10), ("n^3", lambda n: float(n) ** 3, 0.05))
U64 = 1 << 64


def make_routines(rng, count):
    """(name, object, mangled or None), unique names."""
    out = [("main", EXE, None), ("below_main", "NONE", None)]
    i = 0
    while len(out) < count:
        i += 1
        kind = rng.random()
        if kind < 0.40:
            out.append((f"{rng.choice(WORDS)}_{rng.choice(NOUNS)}_{i}", EXE, None))
        elif kind < 0.85:
            ns, cls, meth = rng.choice(NAMESPACES), f"{rng.choice(NOUNS).capitalize()}{i}", rng.choice(WORDS)
            args = [rng.choice(TYPES) for _ in range(rng.randint(0, 3))]
            if rng.random() < 0.3:  # a template class
                cls_d, cls_m = f"{cls}<int, std::allocator<int> >", f"{len(cls)}{cls}IiSaIiEE"
            else:
                cls_d, cls_m = cls, f"{len(cls)}{cls}"
            name = f"{ns}::{cls_d}::{meth}({', '.join(a[0] for a in args)})"
            if rng.random() < 0.2:
                name += " const"
            mangled = f"_ZN{len(ns)}{ns}{cls_m}{len(meth)}{meth}E" + ("".join(a[1] for a in args) or "v")
            out.append((name, EXE, mangled))
        elif kind < 0.97:
            lib = rng.choice(LIBS)
            out.append((f"__{rng.choice(WORDS)}_{rng.choice(NOUNS)}_{i}", lib, None))
        else:
            out.append((f"{rng.choice(WORDS)}_stub_{i}", "NONE", None))
    return out


def split_points(rng, total, n):
    """Points per routine: Zipf-like weights, routines 0 and 1 (main,
    below_main) one point each, about 1% with none."""
    weights = [0.0, 0.0] + [1.0 / (k + 1) ** 0.9 for k in range(n - 2)]
    empty = set(rng.sample(range(2, n), max(1, n // 100)))
    for e in empty:
        weights[e] = 0.0
    rest = total - 2
    s = sum(weights)
    counts = [int(rest * w / s) for w in weights]
    counts[0] = counts[1] = 1
    left = total - sum(counts)
    live = [i for i in range(2, n) if i not in empty]
    for k in range(left):
        counts[live[k % len(live)]] += 1
    return counts


def input_sizes(rng, count):
    """count distinct input sizes: uniform over a range, or log-uniform
    (many small inputs, a few large)."""
    if count == 1:
        return [rng.randint(1, 1000)]
    top = count * rng.choice((2, 4, 16, 64))
    if rng.random() < 0.5:
        return rng.sample(range(1, top + 1), count)
    seen = set()
    lt = math.log(top)
    while len(seen) < count:
        seen.add(max(1, int(math.exp(rng.random() * lt))))
    out = list(seen)
    rng.shuffle(out)
    return out


def point_fields(rng, n, cost, calls, noise, selfr, realr, drms):
    """The fields of one p line after the routine id (and before the drms
    tail): the per-call cost around cost, noise as a fraction."""
    mu = cost * (1.0 + rng.uniform(-noise, noise) / 2)
    if calls == 1:
        lo = hi = s = max(1, int(mu))
        sq = s * s
    else:
        lo = max(1, int(mu * (1.0 - rng.uniform(0, noise))))
        hi = max(lo, int(mu * (1.0 + rng.uniform(0, noise))))
        s = min(max(int(mu * calls), lo * (calls - 1) + hi), hi * (calls - 1) + lo)
        if s < hi:
            s = hi
        sigma = (hi - lo) / 4.0
        sq = s * s // calls + int(calls * sigma * sigma)
        sq = max(sq, lo * lo * calls, s)
    real = s if realr >= 1.0 else max(lo, int(s * realr))
    ssum = min(s, max(calls, int(s * selfr)))
    smin = max(1, min(lo, int(lo * selfr)))
    smax = max(smin, min(hi, int(hi * selfr)))
    ssum = max(ssum, smin * calls)
    ssq = max(ssum * ssum // calls, smin * smin * calls, ssum)
    real = max(real, ssum)  # self cost is inside the outermost calls
    f = [n, lo, hi, s, sq % U64, calls, real, ssum, smin, smax, ssq % U64]
    if drms:
        cap = n * calls
        sc = int(cap * rng.random() * 0.1) if rng.random() < 0.2 else 0
        tc = int(cap * rng.random() * 0.05) if rng.random() < 0.05 else 0
        f += [0, 0, sc, tc, sc // 2, tc // 2]
    return f, ssum


def main():
    args = sys.argv[1:]
    if not args or len(args) > 5:
        sys.exit("usage: gen_aprof.py OUT [POINTS] [ROUTINES] [SEED] [rms|drms]")
    out = args[0]
    points = int(args[1]) if len(args) > 1 else 1_000_000
    nrout = int(args[2]) if len(args) > 2 else 3000
    seed = int(args[3]) if len(args) > 3 else 1
    metric = args[4] if len(args) > 4 else "rms"
    if metric not in ("rms", "drms") or nrout < 3 or points < nrout:
        sys.exit("gen_aprof.py: ROUTINES >= 3, POINTS >= ROUTINES, metric rms or drms")
    drms = metric == "drms"
    rng = random.Random(seed)
    routines = make_routines(rng, nrout)
    counts = split_points(rng, points, nrout)
    ids = rng.sample(range(1, nrout * 4), nrout)  # aprof's ids are not dense
    order = list(range(nrout))
    rng.shuffle(order)  # hash-table order
    blocks, self_total, main_block = [], 0, None
    for ri in order:
        name, obj, mangled = routines[ri]
        rid = ids[ri]
        lines = [f'r "{name}" "{obj}" {rid}\n']
        if mangled:
            lines.append(f'u {rid} "{mangled}"\n')
        npts = counts[ri]
        if ri == 0:  # main: one call over everything, written at the end
            main_block = lines
        elif npts:
            cls = rng.choices(CLASSES, weights=[c[2] for c in CLASSES])[0]
            sizes = input_sizes(rng, npts)
            fmax = cls[1](max(sizes))
            a = rng.uniform(20, 20000)
            b = rng.uniform(1e4, 1e8) / fmax if cls[0] != "1" else 0.0
            noise = rng.uniform(0.01, 0.06)
            selfr = 1.0 if rng.random() < 0.3 else rng.uniform(0.05, 0.9)
            realr = rng.uniform(0.3, 0.9) if rng.random() < 0.1 else 1.0
            selfr = min(selfr, realr * 0.9)  # recursive: self below real
            mean_calls = rng.choice((2, 4, 10, 40, 200, 1000))
            for n in sizes:
                calls = 1 + int(rng.expovariate(1.0 / mean_calls))
                f, ssum = point_fields(rng, n, a + b * cls[1](n), calls, noise, selfr, realr, drms)
                self_total += ssum
                lines.append(f"p {rid} " + " ".join(map(str, f)) + "\n")
        blocks.append(lines)
    total = self_total + self_total // 50
    mself = max(1, total - self_total)
    main_block.append(f"p {ids[0]} 1000 {total} {total} {total} {total * total % U64} 1 {total} "
                      f"{mself} {mself} {mself} {mself * mself % U64}"
                      + (" 0 0 0 0 0 0" if drms else "") + "\n")
    with open(out, "w") as fh:
        fh.write("c -------------------------------------\n"
                 "c report generated by aprof (valgrind) \n"
                 "c -------------------------------------\n"
                 f"v 6\nk {total}\ne 1700000000\nm bb-count\ni {metric}\nt 4\n"
                 f"a ./app\nf {EXE} --input data/big.txt --threads 1\n")
        for lines in blocks:
            fh.writelines(lines)


if __name__ == "__main__":
    main()
