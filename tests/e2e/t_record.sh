# plumb record: real programs compiled here, sampled with perf_event_open,
# unwound with DWARF CFI, symbolized with libdwfl.
if ! command -v gcc >/dev/null 2>&1; then
	skip "record" "gcc not installed"
	return 0 2>/dev/null || exit 0
fi
P="$E2E_DIR/../programs"
gcc -O2 -g -fomit-frame-pointer "$P/rec_shares.c" -o shares
if ! "$PLUMB" record -q --sampler perf -o probe.plumb ./shares 0.01 2> probe.err; then
	skip "record" "perf_event_open cannot sample here: $(head -1 probe.err)"
	return 0 2>/dev/null || exit 0
fi

# share EVENT FUNCTION: FUNCTION's exclusive % of the last csv report.
csv_field() {
	printf '%s' "$out" | python3 -c '
import csv, sys
key, col = sys.argv[1], sys.argv[2]
for r in csv.DictReader(sys.stdin):
    if r[sys.argv[3]] == key:
        print(r[col]); break' "$1" "$2" "$3"
}
# rooted FILE: the % of samples whose stack reaches a root, from plumb info.
rooted() {
	"$PLUMB" info "$1" | awk '$1 == "stacks.rooted" { printf "%.2f", 100 * $2 / $3 }'
}

# 1. Known shares (50/30/20) at 1000 Hz over 2 s, -O2 without frame pointers.
expect_status "record exits with the command's status" 0 "$PLUMB" record -o shares.plumb ./shares 2
run "$PLUMB" report --format csv shares.plumb
py "exclusive shares within 3 points of 50/30/20" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
total = sum(int(r["exclusive.cpu-clock"]) for r in rows)
assert total >= 1700, total
got = {r["function"]: 100.0 * int(r["exclusive.cpu-clock"]) / total for r in rows}
for f, want in (("work_a", 50), ("work_b", 30), ("work_c", 20)):
    assert abs(got.get(f, 0) - want) <= 3, (f, got.get(f), want)
main = [r for r in rows if r["function"] == "main"][0]
assert int(main["inclusive.cpu-clock"]) >= 0.99 * total, main'
r=$(rooted shares.plumb)
if python3 -c "import sys; sys.exit(0 if float('$r') >= 99 else 1)"; then
	ok "-O2 -fomit-frame-pointer: stacks reach a root in >= 99% of samples ($r%)"
else
	fail "-O2 -fomit-frame-pointer: stacks reach a root in >= 99% of samples" "got $r%"
fi
# 1a. Those stacks come from the per-file CFI recipes (record.unwound:
# recipe walks, libdwfl walks), not from libdwfl's unwinder frame by frame.
u=$("$PLUMB" info shares.plumb | awk '$1 == "record.unwound" { print $2, $3 }')
if [ -n "$u" ] && python3 -c "import sys; a, b = map(int, '$u'.split()); sys.exit(0 if a >= 0.95 * (a + b) and a > 0 else 1)"; then
	ok "record.unwound: >= 95% of the stacks walked by recipes ($u)"
else
	fail "record.unwound: >= 95% of the stacks walked by recipes" "got '$u'"
fi
# 1a'. A program rebuilt during the recording, its frames now of other
# sizes: its second build gets recipes of its own (by build-id), not the
# first build's, which would not describe it (libdwfl would then unwind
# most samples).
cat > rebuilt.c <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) double leaf(long n) { double s = 0; for (long i = 0; i < n; i++) s += (double)i / (i + 1); return s; }
__attribute__((noinline)) double mid(long n) { volatile char buf[N]; buf[0] = (char)n; buf[N - 1] = 1; double r = leaf(n); return r + buf[0] + buf[N - 1]; }
int main(int argc, char **argv) { double s = 0; for (int i = 0; i < 40; i++) s += mid(atol(argv[1])); printf("%f\n", s); return 0; }
CEOF
cat > rebuild.sh <<'CEOF'
gcc -O2 -fomit-frame-pointer -DN=16 rebuilt.c -o rebuilt && ./rebuilt 3000000 &&
gcc -O2 -fomit-frame-pointer -DN=4000 rebuilt.c -o rebuilt && ./rebuilt 3000000
CEOF
"$PLUMB" record -q -o rebuilt.plumb -- sh rebuild.sh >/dev/null 2> rebuilt.err
u=$("$PLUMB" info rebuilt.plumb | awk '$1 == "record.unwound" { print $2, $3 }')
if [ -n "$u" ] && python3 -c "import sys; a, b = map(int, '$u'.split()); sys.exit(0 if a >= 0.9 * (a + b) and a > 0 else 1)"; then
	ok "rebuilt during the recording: >= 90% of the stacks walked by recipes ($u)"
else
	fail "rebuilt during the recording: >= 90% of the stacks walked by recipes" "got '$u'"
fi
# ... and the first build's names, read from the second build's file after
# the run, may be wrong: said once, for the first build only (the kernel
# gives each mapping's build-id since Linux 5.12; none before).
w=$(grep -c "rebuilt changed since the program ran (build-id" rebuilt.err)
if [ "$(uname -r | awk -F. '{ print ($1 > 5 || ($1 == 5 && $2 >= 12)) }')" != 1 ]; then
	skip "rebuilt file warning" "kernel $(uname -r) gives no build-ids with its mappings"
elif [ "$w" = 1 ]; then
	ok "a file rebuilt since its program ran: one warning"
else
	fail "a file rebuilt since its program ran: one warning" "got $w in: $(cat rebuilt.err)"
fi
# 1b. A caller's cost is at its call instruction, not inside it (return
# address - 1): every call site written to Callgrind, in the program and in
# libc (where main is called through a register), starts a call
# instruction in objdump -d. KCachegrind's machine-code view otherwise
# warns of "cost lines without machine code".
"$PLUMB" convert shares.plumb --to callgrind -o shares.callgrind
run python3 - shares.callgrind "$(pwd)/shares" <<'PYEOF'
import re, subprocess, sys
path, exe = sys.argv[1], sys.argv[2]
obs, fns = {}, {}
ob = fn = cob = cfn = None
base, sites, pending = [0, 0], [], False
costs = set()  # (object, function, address) of every cost line
def pos(tok, b):
    return b if tok == "*" else b + int(tok) if tok[0] in "+-" else int(tok, 0)
def name(table, ident, rest):
    if rest:
        table[ident] = rest
    return table[ident]
for l in open(path).read().split("\n"):
    m = re.match(r"^(c?)(ob|fn)=\((\d+)\)(?: (.*))?$", l)
    if m:
        n = name(obs if m.group(2) == "ob" else fns, m.group(3), m.group(4))
        if m.group(1):
            cob, cfn = (n, cfn) if m.group(2) == "ob" else (cob, n)
        elif m.group(2) == "ob":
            ob = n
        else:
            fn, cob = n, None
    if re.match(r"^(fn|fi|fe)=", l):
        base = [0, 0]
    if l.startswith("calls="):
        pending = True
    elif l and (l[0].isdigit() or l[0] in "+-*"):
        p = [pos(t, b) for t, b in zip(l.split()[:2], base)]
        if pending:
            sites.append((ob, p[0], cob or ob, cfn))
            pending = False
            cob = None
        else:
            costs.add((ob, fn, p[0]))
        base = p
checked = inlined = 0
for obj in sorted({s[0] for s in sites if s[0] == exe or "libc.so" in (s[0] or "")}):
    out = subprocess.run(["objdump", "-d", obj], capture_output=True, text=True).stdout
    # one instruction per line with its mnemonic; a line that only holds
    # the rest of a long instruction's bytes has none
    starts = {int(a, 16): i for a, i in
              re.findall(r"^[ \t]+([0-9a-f]+):\t(?:[0-9a-f]{2} )+[ \t]*(\S+)", out, re.M)}
    for o, a, co, cf in sites:
        if o != obj or not a:
            continue
        # An inlined callee's frame sits at its caller's own address (a
        # sample's pc): that call site is no call instruction.
        if (co, cf, a) in costs:
            inlined += 1
            continue
        assert a in starts, "%s: call site %#x is not an instruction start" % (obj, a)
        assert starts[a].startswith("call"), "%s: %#x is %s, not a call" % (obj, a, starts[a])
        checked += 1
assert checked >= 4, "only %d call sites checked: %s" % (checked, sites)
print(checked, "checked,", inlined, "inlined")
PYEOF
[ "$rc" -eq 0 ] && ok "callgrind call sites are call instructions in objdump -d ($out checked)" \
	|| fail "callgrind call sites are call instructions in objdump -d" "$err"

run "$PLUMB" report shares.plumb
expect_out "report shows stack completeness" "Stacks reaching a root: "
expect_out "functions have source files" "rec_shares.c"

# 2. Recursion: fib is counted once per stack.
gcc -O1 -g "$P/rec_recurse.c" -o recurse
"$PLUMB" record -q -o rec.plumb ./recurse 37
run "$PLUMB" report --format csv rec.plumb
py "recursion: fib inclusive = total, deep stacks unwound" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
total = sum(int(r["exclusive.cpu-clock"]) for r in rows.values())
incl = int(rows["fib"]["inclusive.cpu-clock"])
assert total > 50 and 0.98 * total <= incl <= total, (incl, total)
assert int(rows["main"]["inclusive.cpu-clock"]) >= 0.99 * total'
run "$PLUMB" report --view tree --threshold 0 --format csv rec.plumb
py "recursion: the call tree nests fib in fib" '
import sys
assert sys.stdin.read().count("fib") >= 10'

# 2b. Inlined functions are frames of their own, at their call sites' lines.
gcc -O2 -g "$P/rec_inline.c" -o inl
"$PLUMB" record -q -o inl.plumb ./inl
run "$PLUMB" report --view lines --format csv inl.plumb
py "inlined frames: inner_step in outer_step (line 13) in hot (line 20)" '
import csv, sys
# inner_step has a row per line its samples fell on (7 and 8): sum them;
# a function of one row keeps it
rows, excl, incl = {}, {}, {}
for r in csv.DictReader(sys.stdin):
    f = r["function"]
    rows.setdefault(f, []).append(r)
    excl[f] = excl.get(f, 0) + int(r["exclusive.cpu-clock"])
    incl[f] = max(incl.get(f, 0), int(r["inclusive.cpu-clock"]))
assert excl["inner_step"] > 100, rows["inner_step"]
# outer_step calls inner_step at line 13, hot calls outer_step at line 20
# (a few samples may fall on their own code: line 14, 19)
assert "13" in [r["line"] for r in rows["outer_step"]] and "20" in [r["line"] for r in rows["hot"]], (rows["outer_step"], rows["hot"])
# the inclusive of a line is its own; the inner_step lines together make up the function
incl["inner_step"] = sum(int(r["inclusive.cpu-clock"]) for r in rows["inner_step"])
assert incl["inner_step"] <= incl["outer_step"] <= incl["hot"] and incl["inner_step"] >= 0.9 * incl["hot"], incl'

# 2c. Symbols: C++ names demangled; a stripped binary's separate debug file
# found through its debuglink; the profile is self-contained.
if command -v g++ >/dev/null 2>&1; then
	g++ -O2 -g "$P/rec_cxx.cc" -o cxx
	"$PLUMB" record -q -o cxx.plumb ./cxx
	run "$PLUMB" report cxx.plumb
	expect_out "C++ names are demangled" "calc::Engine::spin(unsigned long)"
else
	skip "C++ names are demangled" "g++ not installed"
fi
gcc -O2 -g "$P/rec_shares.c" -o stripped
objcopy --only-keep-debug stripped stripped.debug
strip -s stripped
objcopy --add-gnu-debuglink=stripped.debug stripped
"$PLUMB" record -q -o stripped.plumb ./stripped 0.3
rm -f stripped stripped.debug
run "$PLUMB" report --format csv stripped.plumb
py "stripped binary: names and lines from its debuglink file, kept in the profile" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
assert rows["work_a"]["file"].endswith("rec_shares.c"), rows
assert not any("+0x" in f for f in rows if f.startswith("stripped")), list(rows)'

# 3. Threads: per-thread shares, names and start routines.
gcc -O2 -g -pthread "$P/rec_threads.c" -o threads
"$PLUMB" record -q -o thr.plumb ./threads 0.3
run "$PLUMB" report --view threads --format csv thr.plumb
py "threads: names, start routines and shares (hot 50%, warm 25%, main 25%)" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert len(rows) == 3, rows
by = {r["thread"].split()[1]: r for r in rows}
assert by["hot"]["start"] == "hot_worker" and by["warm"]["start"] == "warm_worker", by
assert by["threads"]["start"] == "main", by
pct = {k: float(v["percent.cpu-clock"]) for k, v in by.items()}
assert abs(pct["hot"] - 50) <= 5 and abs(pct["warm"] - 25) <= 5, pct
assert len({r["pid"] for r in rows}) == 1'

# 4. A linked shared library and a dlopen'd one, with their build-ids.
gcc -O2 -g -fPIC -shared -DLIBNAME=lib_linked "$P/rec_lib.c" -o librec_linked.so
gcc -O2 -g -fPIC -shared -DLIBNAME=lib_loaded "$P/rec_lib.c" -o librec_loaded.so
gcc -O2 -g "$P/rec_libmain.c" -o libmain -L. -lrec_linked -Wl,-rpath,'$ORIGIN' -ldl
"$PLUMB" record -q -o lib.plumb ./libmain
run "$PLUMB" report --format csv lib.plumb
py "shared and dlopen'd libraries: functions in their own modules" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
total = sum(int(r["exclusive.cpu-clock"]) for r in rows.values())
for f, m in (("lib_linked", "librec_linked.so"), ("lib_loaded", "librec_loaded.so")):
    assert rows[f]["module"].endswith("/" + m), rows[f]
    assert 30 <= 100 * int(rows[f]["exclusive.cpu-clock"]) / total <= 70, rows[f]'
run sqlite3 lib.plumb "select count(*) from modules m join strings s on s.id = m.build_id"
if [ "${out:-0}" -ge 3 ] 2>/dev/null; then ok "modules carry build-ids"; else fail "modules carry build-ids" "$out $err"; fi

# 5. fork and exec are followed: the child's exec'd program is profiled too.
gcc -O2 -g "$P/rec_fork.c" -o forker
"$PLUMB" record -q -o fork.plumb ./forker ./shares 0.3
run "$PLUMB" report --format csv fork.plumb
py "fork + exec: parent, child and exec'd program all sampled" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
assert rows["spin"]["module"].endswith("/forker"), rows["spin"]
assert int(rows["work_a"]["exclusive.cpu-clock"]) > 50, rows.get("work_a")
assert rows["work_a"]["module"].endswith("/shares")'
run "$PLUMB" report --view threads --format csv fork.plumb
py "fork: two processes" '
import csv, sys
assert len({r["pid"] for r in csv.DictReader(sys.stdin)}) == 2'

# 5b. -p: attach to a running process until it ends.
./threads 0.4 &
pid=$!
sleep 0.15
run "$PLUMB" record -q -o attach.plumb -p $pid
wait $pid
same "-p: exits 0 when the process ends" "$rc" 0
run "$PLUMB" report --view threads --format csv attach.plumb
py "-p: the running threads are sampled" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert len(rows) == 3 and sum(int(r["exclusive.cpu-clock"]) for r in rows) > 300, rows'

# 6. A crash and a kill leave a profile; the status is the shell's 128+N.
gcc -O1 -g "$P/rec_crash.c" -o crash
expect_status "SIGSEGV in the command: exit 139" 139 "$PLUMB" record -q -o crash.plumb ./crash segv
run "$PLUMB" report crash.plumb
expect_out "the crashed command's profile is written" "doomed"
"$PLUMB" record -q -o term.plumb ./crash wait &
pid=$!
sleep 0.5
pkill -TERM -P $pid crash
wait $pid
same "SIGTERM to the command: exit 143" "$?" 143
run "$PLUMB" report term.plumb
expect_out "the killed command's profile is written" "doomed"
"$PLUMB" record -q -o int.plumb ./crash wait &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
same "SIGINT to plumb reaches the command: exit 130" "$?" 130
run "$PLUMB" report int.plumb
expect_out "Ctrl-C still writes the profile" "doomed"

# 7. Events: a clear error for hardware events here, -c N, several events.
run "$PLUMB" record --sampler perf -e cycles ./shares 0.05
if [ "$rc" -eq 0 ]; then
	skip "cycles error" "this machine has hardware counters"
else
	expect_err "cycles without a PMU: a clear error, exit 1" 1 "cycles: no hardware counters" \
		"$PLUMB" record --sampler perf -e cycles ./shares 0.05
	[ -e profile.plumb ] && fail "no profile after an event error" || ok "no profile after an event error"
fi
expect_err "unknown event: usage error" 2 "unknown event 'bogus'" "$PLUMB" record -e bogus ./shares 0.05
"$PLUMB" record -q -o count.plumb -e task-clock -c 2000000 ./shares 0.4
run "$PLUMB" report count.plumb
py "-c 2000000 on task-clock: one sample per 2 ms, costs in ns" '
import re, sys
m = re.search(r"Total: ([\d,]+) task-clock \(([\d,]+) samples, one per 2,000,000 ns\)", sys.stdin.read())
ns, n = (int(g.replace(",", "")) for g in m.groups())
assert ns == n * 2000000, (ns, n)
assert 170 <= n <= 230, n'
"$PLUMB" record -q -o multi.plumb -e cpu-clock,page-faults -F 2000 ./threads 0.1
run "$PLUMB" report --format csv multi.plumb
py "several events: one cost column each" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert sum(int(r["exclusive.cpu-clock"]) for r in rows) > 100
assert sum(int(r["exclusive.page-faults"]) for r in rows) > 0'

# 8. -g fp and -g none.
"$PLUMB" record -q -g none -o none.plumb ./shares 0.2
run "$PLUMB" report --format csv none.plumb
py "-g none: leaf functions only" '
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(sys.stdin)}
assert "main" not in rows or int(rows["main"]["inclusive.cpu-clock"]) < 10, rows.get("main")
assert int(rows["work_a"]["exclusive.cpu-clock"]) > 50'
gcc -O2 -g -fno-omit-frame-pointer "$P/rec_shares.c" -o shares_fp
"$PLUMB" record -q -g fp -o fp.plumb ./shares_fp 0.2
r=$(rooted fp.plumb)
if python3 -c "import sys; sys.exit(0 if float('$r') >= 90 else 1)"; then
	ok "-g fp with frame pointers reaches main ($r%)"
else
	fail "-g fp with frame pointers reaches main" "got $r%"
fi

# 9. An unprivileged user (paranoid 2 allows sampling one's own processes).
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	nb=$(mktemp -d "${TMPDIR:-/tmp}/plumb-nobody.XXXXXX")
	chmod 777 "$nb"
	cp shares "$nb/"
	(cd "$nb" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$PLUMB" record -q -o "$nb/nobody.plumb" ./shares 0.3) > nb.out 2>&1
	nrc=$?
	if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" -le 2 ]; then
		same "non-root record exits 0" "$nrc" 0
		run "$PLUMB" info "$nb/nobody.plumb"
		expect_out "non-root record samples with perf" "record.sampler perf"
	else
		skip "non-root record" "perf_event_paranoid > 2"
	fi
	rm -rf "$nb"
else
	skip "non-root record" "needs root and setpriv to switch users"
fi

# 10. The signal sampler, forced.
run "$PLUMB" record -q --sampler signal -o sig.plumb ./shares 0.5
if [ "$rc" -eq 0 ]; then
	run "$PLUMB" report --format csv sig.plumb
	expect_out "--sampler=signal finds work_a" "work_a"
else
	skip "--sampler=signal" "$(printf '%s' "$err" | head -1)"
fi

# 11. Usage errors.
expect_err "no command: usage error" 2 "no command to record" "$PLUMB" record
expect_err "-c and -F together: usage error" 2 "exclude each other" "$PLUMB" record -c 10 -F 10 ./shares
expect_status "a command that cannot run: 127" 127 "$PLUMB" record -q -o x.plumb ./no-such-program
