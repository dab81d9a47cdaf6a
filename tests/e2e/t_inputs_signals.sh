# A program built with plumb cc still leaves its profile when it crashes,
# is killed (SIGTERM) or gets a Ctrl-C (SIGINT to plumb record's process
# group, which plumb record also passes on); --contexts=no keeps routine
# points only.
T="$E2E_DIR/../programs"

if ! command -v cc > /dev/null 2>&1; then
	skip "plumb cc: signals" "no cc on PATH"
	return 0 2> /dev/null || exit 0
fi

cat > spin.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static int a[64];
__attribute__((noinline)) long sum(const int *v, int n) { long s = 0; for (int i = 0; i < n; i++) s += v[i]; return s; }
/* sums forever; after 1000 calls says so in the file argv[1] */
int main(int argc, char **argv)
{
	long s = 0;
	for (int i = 0; i < 64; i++)
		a[i] = i + argc;
	for (long k = 0;; k++) {
		s += sum(a, 64);
		if (k == 1000 && argc > 1) {
			FILE *f = fopen(argv[1], "w");
			fputs("ready\n", f);
			fclose(f);
		}
		if (k > 1000)
			usleep(1000);
		if (s == 42)
			printf("%ld\n", s);
	}
	return (int)s;
}
C
expect_status "plumb cc builds the spinner" 0 "$PLUMB" cc -O1 spin.c -o spin

# signal_run SIG GROUP OUT: runs plumb record -o OUT ./spin in a new
# session, waits until the program is past its first 1000 calls, sends SIG
# to the program (GROUP=0) or to the whole process group as a terminal's
# Ctrl-C does (GROUP=1); prints plumb record's exit status.
signal_run() {
	rm -f ready
	python3 - "$PLUMB" "$1" "$2" "$3" <<'PY'
import os, signal, subprocess, sys, time
plumb, sig, group, out = sys.argv[1], getattr(signal, sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
p = subprocess.Popen([plumb, "record", "-q", "-o", out, "./spin", "ready"], start_new_session=True)
for _ in range(3000):
    if os.path.exists("ready"):
        break
    time.sleep(0.01)
if group:
    os.killpg(p.pid, sig)
else:
    pids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
    for pid in pids:
        os.kill(int(pid), sig)
try:
    print(p.wait(timeout=120))
except subprocess.TimeoutExpired:
    p.kill()
    print("timeout")
PY
}

check_profile() {
	run "$PLUMB" report --view flat --format csv "$2"
	py "$1: the profile has main and sum's calls" '
import csv, sys
calls = {r["function"]: int(r["calls"]) for r in csv.DictReader(sys.stdin)}
assert calls.get("main") == 1 and calls.get("sum", 0) > 1000, calls
'
}

st=$(signal_run SIGINT 1 int.plumb)
same "Ctrl-C (SIGINT to the process group): plumb record ends as the program did" "$st" "130"
check_profile "Ctrl-C" int.plumb
st=$(signal_run SIGTERM 0 term.plumb)
same "SIGTERM to the program: plumb record ends as the program did" "$st" "143"
check_profile "SIGTERM" term.plumb
st=$(signal_run SIGINT 0 int2.plumb)
same "SIGINT to the program alone" "$st" "130"
check_profile "SIGINT to the program" int2.plumb

# a crash: the jump program's "crash" dereferences a null pointer
expect_status "plumb cc builds the longjmp program" 0 "$PLUMB" cc -O2 "$T/inp_jump.c" -o jump
run "$PLUMB" record -o crash.plumb ./jump crash
same "a crash (SIGSEGV): plumb record ends as the program did" "$rc" "139"
run "$PLUMB" report --view flat --format csv crash.plumb
py "a crash: the profile is written, with the calls before the crash" '
import csv, sys
calls = {r["function"]: int(r["calls"]) for r in csv.DictReader(sys.stdin)}
assert calls.get("main") == 1 and calls.get("deep") == 6, calls
'

# --contexts=no: p lines only (no q, no x), and the profile has no contexts
# beyond the routines, with the same calls.
mkdir nc
PLUMB_APROF_DIR=nc PLUMB_APROF_CONTEXTS=no ./jump > /dev/null 2>&1
f=$(ls nc/*.aprof)
same "PLUMB_APROF_CONTEXTS=no: p lines only" "$(cut -c1 "$f" | grep -E '^[pqx]' | sort -u | tr '\n' ' ')" "p "
expect_status "plumb cc builds the kernels" 0 "$PLUMB" cc -O2 "$T/inp_kernels.c" -o kernels
run "$PLUMB" record --contexts=no -o nc.plumb ./kernels 4
run "$PLUMB" report --view flat --format csv nc.plumb
py "--contexts=no: exact calls still (sum 4, msort 2n-1 per sort)" '
import csv, sys
calls = {r["function"]: int(r["calls"]) for r in csv.DictReader(sys.stdin)}
assert calls["sum"] == 4, calls
assert calls["msort"] == sum(2 * n - 1 for n in range(20, 81, 20)), calls
'
run "$PLUMB" report --view points --format csv nc.plumb
py "--contexts=no: one point per routine and rms, no context" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["context"] == "" for r in rows), rows[:2]
keys = [(r["routine"], r["input"]) for r in rows]
assert len(keys) == len(set(keys)), keys
'
