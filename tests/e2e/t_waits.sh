# plumb record --off-cpu / --sync-wait and report --view locks, on a program
# with known waits (tests/programs/wait_known.c): a mutex another thread
# holds 200 ms, a 300 ms sleep, a 150 ms blocking read of a pipe, a 100 ms
# condition wait. Checked: each wait's off-cpu time on the function that
# waited (lower bounds within 15%; the upper ones are loose: a loaded
# machine only makes waits longer), wall of main = its elapsed time within
# 15%, the lock and the condition wait counted once each in sync-wait, the
# sleep not counted as a lock wait; as root and as nobody (paranoid 2), in
# both off-CPU modes: the default (schedstat polls) and =exact (switch
# records). And preemption: two CPU-bound threads on one CPU.
if ! command -v gcc >/dev/null 2>&1; then
	skip "waits" "gcc not installed"
	return 0 2>/dev/null || exit 0
fi
progs="$E2E_DIR/../programs"
gcc -O2 -g -pthread "$progs/wait_known.c" -o wait_known || fail "compile wait_known.c"

# incl FILE EVENT [PART]: "function inclusive" lines of the flat profile
# (of one part).
incl() {
	"$PLUMB" report --format csv -t 0 -m "$2" ${3:+--part "$3"} "$1" | python3 -c '
import csv, sys
ev = sys.argv[1]
for r in csv.DictReader(sys.stdin):
    print(r["function"].replace(" ", "_"), r["inclusive." + ev])' "$2"
}

# The main thread's waits, in its own part (summed over all parts,
# wait_pipe_read would also hold the forked child's sleep), and the locker
# thread's mutex wait over all parts.
waits_check='
import os, sys
f = {}
for l in sys.stdin:
    part, name, v = l.split()
    f[part, name] = f.get((part, name), 0) + int(v)
# what the program measured of each wait (a loaded machine stretches them,
# or starts the locker thread late), else the nominal times
took = os.environ.get("WAITED", "").split()
took = [float(x) for x in took[2:9:2]] if len(took) >= 9 else [200, 300, 150, 100]
for (part, name), ms in zip((("all", "wait_for_mutex"), ("main", "do_sleep_300ms"),
                             ("main", "wait_pipe_read"), ("main", "wait_cond_100ms")), took):
    got = f.get((part, name), 0) / 1e6
    assert 0.85 * ms <= got <= 1.15 * ms + 10, (name, "off-cpu ms", got, "the program measured", ms)'

# main_part FILE: the part number of the main process's main thread (the
# longest wall time among the parts that started in main).
main_part() {
	"$PLUMB" report --format csv --view threads -m wall "$1" | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["start"] == "main"]
print(max(rows, key=lambda r: int(r["exclusive.wall"]))["part"])'
}

# waits FILE: "all|main function off-cpu" lines.
waits() {
	incl "$1" off-cpu | sed 's/^/all /'
	incl "$1" off-cpu "$(main_part "$1")" | sed 's/^/main /'
}

# main_wall FILE ELAPSED_MS: the main thread's wall time against the elapsed
# time the program printed.
main_wall_check='
import csv, sys
elapsed = float(sys.argv[1])
rows = [r for r in csv.DictReader(sys.stdin) if r["start"] == "main"]
wall = max(int(r["exclusive.wall"]) for r in rows) / 1e6
assert abs(wall - elapsed) <= 0.15 * elapsed, ("main wall ms", wall, "elapsed ms", elapsed)'

sync_check='
import csv, os, sys
took = os.environ.get("WAITED", "").split()
mutex_ms, cond_ms = (float(took[2]), float(took[8])) if len(took) >= 9 else (200, 100)
rows = list(csv.DictReader(sys.stdin))
objs = {r["object"]: r for r in rows if r["depth"] == "0"} if rows and "depth" in rows[0] else None
if objs is None:
    objs = {}
    for r in rows:
        if r["object"].startswith("["):
            objs[r["object"]] = r
m, c = objs.get("[mutex big_lock]"), objs.get("[cond cv]")
assert m and c, ("locks", list(objs))
assert int(m["count.sync-waits"]) == 1 and int(c["count.sync-waits"]) == 1, (m, c)
assert int(m["total.sync-wait"]) >= 0.85e6 * mutex_ms, (m, mutex_ms)
assert int(c["total.sync-wait"]) >= 0.85e6 * cond_ms - 10e6, (c, cond_ms)
waiters = [r["object"] for r in rows if "pthread_mutex_lock" in (r.get("via") or "")]
assert "wait_for_mutex" in waiters, waiters'

# check_recording NAME FILE ELAPSED_MS
check_recording() {
	run waits "$2"
	py "$1: each wait's off-cpu on the function that waited" "$waits_check"
	run "$PLUMB" report --format csv --view threads -m wall "$2"
	if printf '%s' "$out" | python3 -c "$main_wall_check" "$3" 2> .pyerr; then
		ok "$1: wall of main = elapsed within 15%"
	else
		fail "$1: wall of main = elapsed within 15%" "$(cat .pyerr)"
	fi
	run "$PLUMB" report --format csv --view locks "$2"
	py "$1: the lock and the condition wait counted once each with their times" "$sync_check"
	"$PLUMB" report --format csv --view threads "$2" > threads.csv
	py "$1: big_lock was held by the main thread (hold_lock_200ms), for the one wait" '
import csv, os, sys
took = os.environ.get("WAITED", "").split()
mutex_ms = float(took[2]) if len(took) >= 9 else 200
rows = list(csv.DictReader(sys.stdin))
# the locker thread'"'"'s process'"'"'s main thread (the forked child has a main too)
parts = list(csv.DictReader(open("threads.csv")))
pid = [r["pid"] for r in parts if r["start"] == "locker"]
main = [r["thread"] for r in parts if r["start"] == "main" and r["pid"] in pid]
assert len(main) == 1, (main, pid)
i = [r["object"] for r in rows].index("[mutex big_lock]")
held = []
for r in rows[i + 1:]:
    if r["object"].startswith("["):
        break
    if r["object"].startswith("held by "):
        held.append(r)
assert [h["object"] for h in held] == ["held by " + main[0]], (held, main)
assert int(held[0]["count.sync-waits"]) == 1 and int(held[0]["total.sync-wait"]) >= 0.85e6 * mutex_ms, held'
	run incl "$2" sync-wait
	py "$1: the sleep is not a lock wait" '
import sys
f = dict(l.split() for l in sys.stdin)
assert int(f.get("do_sleep_300ms", 0)) == 0 and int(f.get("__nanosleep", 0)) == 0, f'
}

# the two modes: MODE (as given to --off-cpu) and what plumb info says
modes="default:sched:schedstat_polls exact:exact:switch_records"
for m in $modes; do
	opt=${m%%:*}
	[ "$opt" = default ] && flag=--off-cpu || flag=--off-cpu=$opt
	expect_status "record $flag --sync-wait" 0 \
		"$PLUMB" record $flag --sync-wait -o "w-$opt.plumb" ./wait_known
	elapsed=$(printf '%s' "$out" | sed -n 's/^elapsed \([0-9]*\) ms$/\1/p')
	WAITED=$(printf '%s' "$out" | grep '^waited ')
	export WAITED
	check_recording "root $flag" "w-$opt.plumb" "${elapsed:-0}"
	run "$PLUMB" info "w-$opt.plumb"
	expect_out "$flag: the calibrated threshold is in the metadata" "(calibrated)"
	info=${m#*:}
	expect_out "$flag: the metadata says which mode" "record.off_cpu ${info%%:*}: $(echo "${info#*:}" | tr _ ' ')"
done
cp w-default.plumb w.plumb

# The samples are timed: --time and the timeline see off-CPU time.
run "$PLUMB" report --format csv --view timeline -m off-cpu w.plumb
py "timeline: off-cpu buckets sum to the total" '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["event"] == "off-cpu"]
assert rows and sum(float(r["value"]) for r in rows) > 700e6, len(rows)'
# (the mutex wait runs from 100 to 300 ms, the sleep from 300 ms on, later
# on a loaded machine: both modes charge a wait at its start)
for opt in default exact; do
	run "$PLUMB" report --format csv -t 0 -m off-cpu --time 0%-33% w-$opt.plumb
	py "--time ($opt): the first third holds the mutex wait, not the sleep" '
import csv, sys
f = {r["function"]: int(r["inclusive.off-cpu"]) for r in csv.DictReader(sys.stdin)}
assert f.get("wait_for_mutex", 0) > 40e6 and f.get("do_sleep_300ms", 0) == 0, f'
done

# A threshold given: =0 counts every wait, uncontended ones included.
expect_status "record --sync-wait=0" 0 "$PLUMB" record -q --sync-wait=0 -o s0.plumb ./wait_known
run "$PLUMB" report --format csv --view locks s0.plumb
py "--sync-wait=0: the uncontended cv_lock is counted too" '
import csv, sys
objs = [r["object"] for r in csv.DictReader(sys.stdin)]
assert "[mutex cv_lock]" in objs, objs'

# The signal sampler (no perf_event_open): waits from the tracer alone.
expect_status "record --sampler=signal --off-cpu" 0 \
	"$PLUMB" record -q --sampler=signal --off-cpu --sync-wait -o sig.plumb ./wait_known
WAITED=$(printf '%s' "$out" | grep '^waited ')
export WAITED
run waits sig.plumb
py "signal sampler: each wait's off-cpu on the function that waited" "$waits_check"
run "$PLUMB" info sig.plumb
expect_out "signal sampler: the metadata says which mode" "record.off_cpu sched: schedstat polls + wait tracer (signal sampler)"

# --off-cpu takes a mode, strictly.
expect_err "--off-cpu: an unknown mode is refused with the nearest" 2 "did you mean 'exact'" \
	"$PLUMB" record --off-cpu=exat -o x.plumb ./wait_known
expect_err "--off-cpu=exact needs perf's switch records" 2 "--sampler=signal" \
	"$PLUMB" record --off-cpu=exact --sampler=signal -o x.plumb ./wait_known

# Preemption is its own event in both modes, and with the signal sampler: two threads that never block,
# on one CPU, are runnable but not running about half the time each (more
# when the machine is loaded); little of their off-CPU time is anything else.
gcc -O2 -g -pthread "$progs/wait_preempt.c" -o wait_preempt || fail "compile wait_preempt.c"
if command -v taskset >/dev/null 2>&1; then
	for opt in default exact signal; do
		case $opt in
		default) flag=--off-cpu ;;
		signal) flag="--off-cpu --sampler=signal" ;;
		*) flag=--off-cpu=$opt ;;
		esac
		expect_status "record $flag, two threads on one CPU" 0 \
			taskset -c 0 "$PLUMB" record -q $flag -o "p-$opt.plumb" ./wait_preempt 600
		for e in wall off-cpu preempted; do
			"$PLUMB" report --format csv --view threads -m $e "p-$opt.plumb" > "p-$e.csv"
		done
		py "$flag: each burning thread was preempted about half its time" '
import csv
def col(e):
    return {r["part"]: (r["start"], int(r["exclusive." + e])) for r in csv.DictReader(open("p-%s.csv" % e))}
wall, off, pre = col("wall"), col("off-cpu"), col("preempted")
burn = [p for p, (start, _) in wall.items() if start == "burn"]
assert len(burn) == 2, wall
for p in burn:
    w, o, q = wall[p][1], off.get(p, ("", 0))[1], pre.get(p, ("", 0))[1]
    assert 0.35 * w <= q <= 0.9 * w, ("preempted", q, "of wall", w)
    assert o - q <= 0.15 * w, ("off-cpu", o, "preempted", q, "wall", w)'
	done
else
	skip "preemption" "taskset not installed"
fi

# wall = elapsed for every thread, even one that spends its time in the
# kernel, where user-only cpu-clock samples do not see it: the on-CPU part
# is what schedstat or the switch records measured (the two players of a
# ping-pong live about as long as main; main, which mostly waits in
# pthread_join, may have no CPU sample for its own few ms on the CPU).
gcc -O2 -g -pthread "$progs/wait_pingpong.c" -o wait_pingpong || fail "compile wait_pingpong.c"
for opt in default exact signal; do
	case $opt in
	default) flag=--off-cpu ;;
	signal) flag="--off-cpu --sampler=signal" ;;
	*) flag=--off-cpu=$opt ;;
	esac
	expect_status "record $flag of a ping-pong" 0 "$PLUMB" record -q $flag -o "pp-$opt.plumb" ./wait_pingpong 20000
	run "$PLUMB" report --format csv --view threads -m wall "pp-$opt.plumb"
	py "$flag: each player's wall is about main's" '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
main = [int(r["exclusive.wall"]) for r in rows if r["start"] == "main"]
players = [int(r["exclusive.wall"]) for r in rows if r["start"] == "player"]
assert len(main) == 1 and len(players) == 2, rows
assert all(0.8 * main[0] <= p <= 1.1 * main[0] for p in players), (main, players)'
done

expect_err "--sync-wait takes microseconds" 2 "microseconds" \
	"$PLUMB" record --sync-wait=abc -o x.plumb ./wait_known
expect_err "--off-cpu needs a CPU clock event" 2 "cpu-clock or task-clock" \
	"$PLUMB" record --off-cpu -e page-faults -o x.plumb ./wait_known
expect_err "the locks view needs lock waits" 2 "--sync-wait" \
	"$PLUMB" report --view locks "$DATA/fig21.folded"

# Unprivileged (kernel.perf_event_paranoid 2 on Debian): switch records and
# the preloaded tracer need no privilege.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	nb=$(mktemp -d "${TMPDIR:-/tmp}/plumb-nobody.XXXXXX")
	cp wait_known "$nb/"
	chown -R nobody "$nb"
	chmod 700 "$nb"
	for opt in default exact; do
		[ "$opt" = default ] && flag=--off-cpu || flag=--off-cpu=$opt
		expect_status "nobody: record $flag --sync-wait" 0 \
			setpriv --reuid=nobody --regid=nogroup --clear-groups \
			env HOME="$nb" TMPDIR="$nb" "$PLUMB" record $flag --sync-wait -o "$nb/w.plumb" "$nb/wait_known"
		elapsed=$(printf '%s' "$out" | sed -n 's/^elapsed \([0-9]*\) ms$/\1/p')
		WAITED=$(printf '%s' "$out" | grep '^waited ')
		export WAITED
		case "$err" in
		*"signal sampler"*) skip "nobody $flag: perf sampler" "perf_event_open refused here: $err" ;;
		*) ok "nobody $flag: recorded with perf_event_open" ;;
		esac
		check_recording "nobody $flag" "$nb/w.plumb" "${elapsed:-0}"
	done
	left=$(find "$nb" -mindepth 1 -name 'plumb-*' -type d | wc -l)
	same "nobody: no tracer directory left behind" "$left" 0
	rm -rf "$nb"
else
	skip "waits as nobody" "needs root (to drop to nobody) and setpriv"
fi

# record -p --off-cpu sees only its window: a thread blocked when it opens
# is charged from then to its first switch in, one still blocked when it
# closes (Ctrl-C) from its last switch out. tests/programs/wait_window.c
# sleeps (block_first), burns CPU (burn), sleeps again (block_last); the
# off-CPU time goes to the nearest CPU sample (no tracer with -p): burn.
gcc -O2 -g "$progs/wait_window.c" -o wait_window || fail "compile wait_window.c"
# window FIRST_MS BURN_MS LAST_MS ATTACH_AFTER_S STOP_AFTER_S|none OUT:
# prints the off-cpu total in ms
window() {
	python3 - "$PLUMB" "$flag" "$@" <<'PY'
import signal, subprocess, sys, time
plumb, flag, a, b, c, attach, stop, out = sys.argv[1:9]
w = subprocess.Popen(["./wait_window", a, b, c])
time.sleep(float(attach))
r = subprocess.Popen([plumb, "record", "-q", "-p", str(w.pid), flag, "-o", out])
if stop != "none":
    time.sleep(float(stop))
    r.send_signal(signal.SIGINT)
else:
    w.wait()   # reaped: plumb sees the process gone
r.wait()
w.wait()
PY
	"$PLUMB" report -m off-cpu --format csv -t 0 "$6" | python3 -c '
import csv, sys
print(max([int(r["inclusive.off-cpu"]) for r in csv.DictReader(sys.stdin)] + [0]) // 1000000)'
}
# both modes: the default reads each thread's schedstat as the window
# opens and closes, =exact closes its switch records there
for opt in default exact; do
	[ "$opt" = default ] && flag=--off-cpu || flag=--off-cpu=$opt
	# blocked 2 s from the start, attached after 0.3 s; then 0.5 s more at the
	# end, inside the window: at least 0.5 s + most of 1.7 s
	ms=$(window 2000 200 500 0.3 none w1-$opt.plumb)
	if [ "${ms:-0}" -ge 1500 ] && [ "${ms:-0}" -le 4000 ]; then
		ok "record -p $flag: a thread blocked when the window opens is charged from then"
	else
		fail "record -p $flag: a thread blocked when the window opens is charged from then" \
			"expected 1500-4000 ms of off-cpu (0.5 s inside the window + about 1.7 s from its start), got ${ms:-nothing}"
	fi
	run "$PLUMB" info "w1-$opt.plumb"
	[ "$opt" = default ] && mode="sched: schedstat polls" || mode="exact: switch records"
	same "record -p $flag: the metadata says which mode, without the tracer" \
		"$(printf '%s\n' "$out" | sed -n 's/^record\.off_cpu  *//p')" "$mode"
	# blocked from 0.4 s to 4.4 s, attached after 0.1 s, stopped 1.5 s later:
	# about 1.2 s at the end, besides 0.1-0.2 s at the start
	ms=$(window 200 200 4000 0.1 1.5 w2-$opt.plumb)
	if [ "${ms:-0}" -ge 800 ] && [ "${ms:-0}" -le 3000 ]; then
		ok "record -p $flag: a thread still blocked when recording stops is charged to then"
	else
		fail "record -p $flag: a thread still blocked when recording stops is charged to then" \
			"expected 800-3000 ms of off-cpu (about 1.2 s before Ctrl-C), got ${ms:-nothing}"
	fi
	# blocked from before the window opens to after it closes (no CPU sample
	# at all): the stack it is blocked at is read when the window opens
	# (/proc/PID/task/TID/syscall and its stack memory), so its 1.2 s go to
	# nap under main, not nowhere
	window 5000 0 0 0.3 1.2 w3-$opt.plumb > /dev/null
	nap=$("$PLUMB" report -m off-cpu --format csv -t 0 w3-$opt.plumb | python3 -c '
import csv, sys
rows = {r["function"]: int(r["inclusive.off-cpu"]) for r in csv.DictReader(sys.stdin)}
print(rows.get("nap", 0) // 1000000, rows.get("main", 0) // 1000000)')
	if [ "${nap% *}" -ge 900 ] && [ "${nap% *}" -le 3000 ] && [ "${nap#* }" -ge "${nap% *}" ]; then
		ok "record -p $flag: a thread blocked for the whole window is charged at the stack it is blocked at"
	else
		fail "record -p $flag: a thread blocked for the whole window is charged at the stack it is blocked at" \
			"expected 900-3000 ms of off-cpu in nap, and as much in main above it, got nap/main ms: ${nap:-nothing}"
	fi
done
