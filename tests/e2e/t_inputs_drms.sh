# plumb record --drms and --cost time on programs built with plumb cc
# (tests/programs/inp_io.c): a routine reading a file through a 4 KB
# buffer has rms 1024 and drms = the cells its read() calls brought; values
# another thread wrote count again; the cost in microseconds.
T="$E2E_DIR/../programs"

if ! command -v cc > /dev/null 2>&1; then
	skip "plumb record --drms" "no cc on PATH"
	return 0 2> /dev/null || exit 0
fi

# point_fields CSV ROUTINE: "input syscall_cumul thread_cumul syscall_self
# thread_self calls" of the routine's points (from a --view points CSV).
point_fields() {
	printf '%s\n' "$1" | python3 -c '
import csv, sys
for r in csv.DictReader(sys.stdin):
    if r["routine"] == sys.argv[1]:
        print(r["input"], r["syscall_cumul"], r["thread_cumul"], r["syscall_self"], r["thread_self"], r["calls"])
' "$2"
}

for cc in gcc clang; do
	if ! command -v $cc > /dev/null 2>&1; then
		skip "--drms with $cc" "no $cc"
		continue
	fi
	expect_status "plumb cc --cc=$cc builds inp_io.c" 0 "$PLUMB" cc --cc=$cc -O2 -pthread "$T/inp_io.c" -o io_$cc
	# 10 full 4 KB blocks plus 100 bytes: 10265 cells
	head -c 41060 /dev/zero | tr '\0' 'a' > data
	want=$(( 41060 * 97 ))
	run "$PLUMB" record -o rms_$cc.plumb ./io_$cc data
	same "$cc: the program runs as usual under plumb record" "$out" "$want $want 10700"
	run "$PLUMB" record --drms -o drms_$cc.plumb ./io_$cc data
	same "$cc: the program runs as usual under plumb record --drms" "$out" "$want $want 10700"

	run "$PLUMB" report --view points --format csv rms_$cc.plumb
	pts=$out
	same "$cc rms: a loop over read() into a 4 KB buffer has rms 1024" "$(point_fields "$pts" consume)" "1024     1"
	same "$cc rms: the same with fread()" "$(point_fields "$pts" consume_stdio)" "1024     1"
	run "$PLUMB" report --view points --format csv drms_$cc.plumb
	pts=$out
	same "$cc drms: read() brought 10265 cells, all new input of consume itself" \
		"$(point_fields "$pts" consume)" "10265 10265 0 10265 0 1"
	same "$cc drms: fread() the same" "$(point_fields "$pts" consume_stdio)" "10265 10265 0 10265 0 1"
	same "$cc drms: values another thread wrote between two sums count again (drms 200 + 2 cells, 100 from a thread)" \
		"$(point_fields "$pts" twice)" "202 0 100 0 0 1"
	same "$cc drms: each sum reads 100 cells, the second's 100 written by the other thread (one point)" \
		"$(point_fields "$pts" sum)" "100 0 100 0 100 2"
	same "$cc drms: main's input counts both files and the thread's values" \
		"$(point_fields "$pts" main | cut -d' ' -f2,3)" "20530 100"
done

# PLUMB_APROF_DRMS: the reports say i drms and have 18 fields.
mkdir rep
PLUMB_APROF_DIR=rep PLUMB_APROF_DRMS=yes ./io_gcc data > /dev/null
f=$(ls rep/io_gcc_*_0_4.aprof)
same "PLUMB_APROF_DRMS=yes: i drms, 18 fields per point" \
	"$(grep '^i' "$f") $(awk '$1 == "q" { print NF - 1 }' "$f" | sort -u)" "i drms 18"

# --cost time: a routine that sleeps 30 ms costs about 30000 us; its
# neighbour that only computes, far less.
cat > nap.c <<'C'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) void nap(void) { usleep(30000); }
__attribute__((noinline)) long spin(int n) { long s = 0; for (int i = 0; i < n; i++) s += i; return s; }
int main(void) { nap(); printf("%ld\n", spin(1000)); return 0; }
C
expect_status "plumb cc builds the sleeper" 0 "$PLUMB" cc -O1 nap.c -o nap
run "$PLUMB" record --cost time -o time.plumb ./nap
run "$PLUMB" report --view flat --format csv time.plumb
py "--cost time: the sleeper costs its 30 ms in microseconds, the event is time-usec" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
col = [k for k in rows[0] if k.startswith("inclusive")][0]
assert col.endswith("time-usec"), col
v = {r["function"]: int(r[col]) for r in rows}
assert 30000 <= v["nap"] < 600000, v
assert v["spin"] < v["nap"], v
'
run "$PLUMB" record -o bb.plumb ./nap
run "$PLUMB" report --view flat --format csv bb.plumb
py "--cost bb (the default): the sleeper costs a few basic blocks" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
col = [k for k in rows[0] if k.startswith("inclusive")][0]
assert col.endswith("bb-count"), col
v = {r["function"]: int(r[col]) for r in rows}
assert v["nap"] < 10 < v["spin"], v
'
expect_err "--cost expects time or bb" 2 "time or bb" "$PLUMB" record --cost cycles ./nap
expect_err "--drms is for plumb cc programs" 2 "plumb cc" "$PLUMB" record --drms true
