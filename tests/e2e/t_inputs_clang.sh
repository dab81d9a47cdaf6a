# plumb cc --cc=clang (and clang as the cc on PATH): clang's hooks
# (-finstrument-functions-after-inlining, sanitizer coverage with loads,
# stores and a guard per block) give the same input sizes, calls and
# calling contexts as gcc's on the t_inputs programs.
T="$E2E_DIR/../programs"

if ! command -v clang > /dev/null 2>&1 || ! command -v gcc > /dev/null 2>&1; then
	skip "plumb cc --cc=clang" "clang or gcc not on PATH"
	return 0 2> /dev/null || exit 0
fi

# points FILE: "context-path rms calls" per q line, the path made of routine
# names from the x lines, sorted: what both compilers must agree on.
points() {
	python3 -c '
import sys
names, routine, parent, rows = {}, {}, {}, []
for l in open(sys.argv[1]):
    t = l.split()
    if not t:
        continue
    if t[0] == "r":
        names[t[-1]] = l.split("\"")[1]
    elif t[0] == "x":
        routine[t[2]] = names[t[1]]
        parent[t[2]] = t[3]
    elif t[0] == "q":
        rows.append((t[1], t[2], t[7]))
def path(c):
    p = []
    while c in routine:
        p.append(routine[c])
        c = parent[c]
    return "/".join(reversed(p))
for c, rms, calls in sorted(rows):
    print(path(c), rms, calls)
' "$1" | sort
}

for prog in kernels threads jump libc; do
	opts=-O2
	[ "$prog" = threads ] && opts="-O2 -pthread"
	expect_status "plumb cc --cc=clang builds inp_$prog.c" 0 "$PLUMB" cc --cc=clang $opts -g "$T/inp_$prog.c" -o "c_$prog"
	expect_status "plumb cc --cc=gcc builds inp_$prog.c" 0 "$PLUMB" cc --cc=gcc $opts -g "$T/inp_$prog.c" -o "g_$prog"
	mkdir "rc_$prog" "rg_$prog"
	arg=
	[ "$prog" = kernels ] && arg=6
	PLUMB_APROF_DIR="rc_$prog" "./c_$prog" $arg > c.out 2>&1
	PLUMB_APROF_DIR="rg_$prog" "./g_$prog" $arg > g.out 2>&1
	same "clang and gcc builds of inp_$prog.c print the same" "$(cat c.out)" "$(cat g.out)"
	same "clang and gcc: as many reports (threads) for inp_$prog.c" "$(ls "rc_$prog" | wc -l)" "$(ls "rg_$prog" | wc -l)"
	cp=$(for f in "rc_$prog"/*.aprof; do points "$f"; done | sort)
	gp=$(for f in "rg_$prog"/*.aprof; do points "$f"; done | sort)
	if [ -n "$cp" ] && [ "$cp" = "$gp" ]; then
		ok "clang and gcc: the same contexts, rms and calls for inp_$prog.c"
	else
		fail "clang and gcc: the same contexts, rms and calls for inp_$prog.c" "clang:" "$cp" "gcc:" "$gp"
	fi
done

run nm c_kernels
case "$out" in
*" T __cyg_profile_func_enter"*) ok "clang build: plumb's runtime has clang's hooks" ;;
*) fail "clang build: plumb's runtime has clang's hooks" "$(printf '%s' "$out" | grep -E 'cyg|sanitizer' | head)" ;;
esac

# plumb record of the clang build: exact calls in the tree.
run "$PLUMB" record -o c.plumb ./c_kernels 5
case "$err" in
*"built with plumb cc"*) ok "plumb record knows a clang build" ;;
*) fail "plumb record knows a clang build" "$err" ;;
esac
run "$PLUMB" report --view flat --format csv c.plumb
py "clang build recorded: exact calls (sum 5, msort 2n-1 per sort)" '
import csv, sys
calls = {}
for r in csv.DictReader(sys.stdin):
    name = r.get("function") or r.get("name") or r.get("routine")
    calls[name] = calls.get(name, 0) + int(r["calls"])
assert calls["sum"] == 5, calls
assert calls["msort"] == sum(2 * n - 1 for n in range(20, 101, 20)), calls
'

# clang as the cc on PATH (a link named cc), and separate compile and link.
mkdir bin
ln -s "$(command -v clang)" bin/cc
expect_status "plumb cc with clang as cc: compile" 0 env PATH="$PWD/bin:$PATH" "$PLUMB" cc -O2 -c "$T/inp_kernels.c" -o k.o
expect_status "plumb cc with clang as cc: link" 0 env PATH="$PWD/bin:$PATH" "$PLUMB" cc -o p_kernels k.o
run nm k.o
case "$out" in
*__tsan*) fail "clang as cc on PATH gets clang's options" "$(printf '%s' "$out" | head -5)" ;;
*"U __cyg_profile_func_enter"*"U __sanitizer_cov_load4"*) ok "clang as cc on PATH gets clang's options" ;;
*) fail "clang as cc on PATH gets clang's options" "$(printf '%s' "$out" | head -5)" ;;
esac
mkdir rp
PLUMB_APROF_DIR=rp ./p_kernels 6 > /dev/null
same "clang as cc on PATH: the same points as the --cc=clang build" "$(points rp/*.aprof)" "$(points rc_kernels/*.aprof)"
