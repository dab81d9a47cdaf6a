# The first hour of a new user (issue 16): the README's quick start as
# written, no silent empty answers, "did you mean", folded stacks without
# modules, the pager, recording over a profile, a period per event.
ROOT=$(cd "$E2E_DIR/../.." && pwd)

# ---- 1. the quick start, command by command -------------------------------
# make demo leaves build/plumb and build/demo; the README's next block must
# then work exactly as written.
mkdir build
ln -s "$PLUMB" build/plumb
if ! command -v cc >/dev/null 2>&1; then
	skip "quick start" "no C compiler"
else
	cc -O2 -g -fomit-frame-pointer -o build/demo "$ROOT/examples/demo.c"
	awk '/^`make demo` leaves/ { on = 1 } on && /^```sh/ { code = 1; next } code && /^```/ { exit } code' \
		"$ROOT/README.md" > quick.sh
	grep -q 'plumb record build/demo' quick.sh && ok "README quick start block found" ||
		fail "README quick start block found" "$(cat quick.sh)"
	run env -u PLUMB_PAGER PAGER=cat sh -e quick.sh
	if [ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q quicksort; then
		ok "README quick start runs as written"
	else
		fail "README quick start runs as written" "exit $rc" "$err" "$(printf '%s' "$out" | head -5)"
	fi
	# the demo ends by saying where plumb is and how it gets on PATH
	run sh "$ROOT/scripts/demo.sh" build/plumb
	expect_out "make demo ends with where plumb is" "plumb is at build/plumb"
	expect_out "make demo says how to put it on PATH" 'export PATH='
	expect_out "make demo names make install" "make install PREFIX="
fi

# ---- 2. nothing empty without a word ---------------------------------------
F=$ROOT/examples/demo.folded
expect_err "--butterfly with a typo" 1 "--butterfly 'quicksrt' matches nothing in" "$PLUMB" report "$F" --butterfly quicksrt
expect_err "... suggests the function" 1 "did you mean 'quicksort'?" "$PLUMB" report "$F" --butterfly quicksrt
same "... and prints no table" "$out" ""
expect_err "--select of nothing" 1 "--select 'zzzz' matches nothing" "$PLUMB" report "$F" --select zzzz
expect_err "--hide of nothing" 1 "--hide 'chekcsum' matches nothing" "$PLUMB" report "$F" --hide chekcsum
expect_err "... did you mean checksum" 1 "did you mean 'checksum'?" "$PLUMB" report "$F" --hide chekcsum
expect_err "--callers of a part of a name" 1 "did you mean 'count_word'?" "$PLUMB" report "$F" --callers count_wrd
expect_err "--focus file:func on folded stacks" 1 "has no source file names" "$PLUMB" report "$F" --focus demo.c:quicksort
expect_err "... offers the function alone" 1 "without the file: 'quicksort'" "$PLUMB" report "$F" --focus demo.c:quicksort
expect_err "--select file on folded stacks" 1 "names the file 'demo.c'" "$PLUMB" report "$F" --select demo.c
expect_status "a spec that matches still works" 0 "$PLUMB" report "$F" --butterfly quicksort
expect_out "... and shows it" "quicksort"
expect_err "diff --focus of nothing" 1 "--focus 'nosuch' matches nothing" "$PLUMB" diff "$F" "$F" --focus nosuch
if [ -f profile.plumb ]; then
	expect_err "a file spec with a typo" 1 "did you mean 'demo.c'?" "$PLUMB" report --select dmeo.c
	expect_err "a function in a file" 1 "no function 'quicksrt' in demo.c; did you mean 'quicksort'?" \
		"$PLUMB" report --focus demo.c:quicksrt
	expect_status "file:function on a recording" 0 "$PLUMB" report --focus demo.c:quicksort
	expect_status "a load module by name" 0 "$PLUMB" report --view modules --select libc.so.6
fi
expect_err "unknown command" 2 "'reprot' is not a command; did you mean 'report'?" "$PLUMB" reprot
expect_err "unknown option" 2 "unknown option '--butterfy'; did you mean '--butterfly'?" "$PLUMB" report --butterfy x "$F"
expect_err "unknown option=value" 2 "did you mean '--threshold'?" "$PLUMB" report --treshold=3 "$F"
expect_err "unknown record option" 2 "did you mean '--freq'?" "$PLUMB" record --frq 10 true
expect_err "unknown view" 2 "unknown view 'bottomup2'" "$PLUMB" report --view bottomup2 "$F"
expect_err "unknown view suggests" 2 "did you mean 'tree'?" "$PLUMB" report --view tre "$F"
expect_err "unknown format" 2 "did you mean 'json'?" "$PLUMB" report --format jsno "$F"
expect_err "unknown sort key" 2 "did you mean 'inclusive'?" "$PLUMB" report --sort inclusiv "$F"
expect_err "unknown convert format" 2 "did you mean 'callgrind'?" "$PLUMB" convert "$F" --to calgrind -o x
expect_err "far from everything: no guess" 2 "unknown format 'yaml' (" "$PLUMB" report --format yaml "$F"
mkdir empty
run sh -c "cd empty && '$PLUMB' report"
if [ "$rc" -eq 1 ] && printf '%s' "$err" | grep -q "no profile.plumb here" &&
   printf '%s' "$err" | grep -q "plumb record ./myprog"; then
	ok "report without a profile says how to make one"
else
	fail "report without a profile says how to make one" "exit $rc" "$err"
fi
# A profile whose totals are all 0 says so above its empty table.
printf 'main;work 0\nmain 0\n' > zero.folded
run "$PLUMB" report zero.folded
expect_out "all-zero totals are said, not an empty table alone" "Nothing was measured: every total is 0."
if "$PLUMB" record -q -c 1000000000 -o nosamples.plumb true 2> /dev/null; then
	run "$PLUMB" report nosamples.plumb
	expect_out "a recording without samples says why" "The recording took no samples"
	run "$PLUMB" report --view tree nosamples.plumb
	same "... and every view of it reads (no out-of-memory on no frames)" "$rc" 0
else
	skip "a recording without samples" "plumb record cannot sample here"
fi

# ---- 5. folded stacks for flamegraph.pl ------------------------------------
if [ -f profile.plumb ]; then
	run "$PLUMB" convert profile.plumb --to folded -o plain.folded
	if grep -q ' \[' plain.folded; then
		fail "folded output: names only" "$(grep ' \[' plain.folded | head -2)"
	else
		ok "folded output: names only"
	fi
	run "$PLUMB" convert profile.plumb --modules -o - --to folded
	printf '%s\n' "$out" > mods.folded
	grep -q 'main \[/' mods.folded && ok "--modules: name [module]" || fail "--modules: name [module]" "$(head -2 mods.folded)"
	total() { "$PLUMB" report --no-pager "$1" | sed -n 's/^Total: \([0-9,]*\).*/\1/p'; }
	t0=$(total profile.plumb) t1=$(total plain.folded) t2=$(total mods.folded)
	same "names-only folded keeps the total" "$t1" "$t0"
	same "--modules folded keeps the total" "$t2" "$t0"
	expect_err "--modules is for folded output" 2 "--modules is for folded output" "$PLUMB" convert profile.plumb --modules -o x.callgrind
fi

# ---- 7. the pager and what is not shown --------------------------------------
if [ -f profile.plumb ] && command -v script >/dev/null 2>&1; then
	# script(1) gives plumb a terminal; the pager marks what it saw
	tty_run() { script -qec "$1" /dev/null < /dev/null | tr -d '\r'; }
	o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' report --limit 3")
	case "$o" in *"PAGED:Flat profile"*) ok "a terminal gets the pager" ;; *) fail "a terminal gets the pager" "$o" ;; esac
	o=$(tty_run "PLUMB_PAGER= PAGER='sed s/^/VIAPAGER:/' '$PLUMB' report --limit 3")
	case "$o" in *"VIAPAGER:Flat profile"*) fail "PLUMB_PAGER= turns it off" "$o" ;; *) ok "PLUMB_PAGER= turns it off" ;; esac
	o=$(tty_run "unset PLUMB_PAGER; PAGER='sed s/^/VIAPAGER:/' '$PLUMB' report --limit 3")
	case "$o" in *"VIAPAGER:Flat profile"*) ok "PAGER is used without PLUMB_PAGER" ;; *) fail "PAGER is used without PLUMB_PAGER" "$o" ;; esac
	o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' report --no-pager --limit 3")
	case "$o" in *PAGED:*) fail "--no-pager" "$o" ;; *"Flat profile"*) ok "--no-pager" ;; *) fail "--no-pager" "$o" ;; esac
	o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' --no-pager report --limit 3")
	case "$o" in *PAGED:*) fail "plumb --no-pager report" "$o" ;; *"Flat profile"*) ok "plumb --no-pager report" ;; *) fail "plumb --no-pager report" "$o" ;; esac
	o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' report --limit 3 --color always")
	case "$o" in *"PAGED:"*"$(printf '\033')["*) ok "colours go through the pager" ;; *) fail "colours go through the pager" "$o" ;; esac
	o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' annotate --help >/dev/null; PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' diff profile.plumb profile.plumb --limit 2")
	case "$o" in *"PAGED:Base:"*) ok "diff pages too" ;; *) fail "diff pages too" "$o" ;; esac
	o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' info profile.plumb")
	case "$o" in *"PAGED:File:"*) ok "info pages too" ;; *) fail "info pages too" "$o" ;; esac
	o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' info --no-pager profile.plumb")
	case "$o" in *PAGED:*) fail "info --no-pager" "$o" ;; *"File:"*) ok "info --no-pager" ;; *) fail "info --no-pager" "$o" ;; esac
	if command -v gcc >/dev/null 2>&1 && printf 'int f(int n){return n?f(n-1)+1:0;}\nint main(void){volatile int s=0;for(int i=0;i<300000;i++)s+=f(50);return 0;}\n' > pg.c &&
		gcc -pg -o pg pg.c 2>/dev/null && ./pg && [ -f gmon.out ]; then
		o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' gprof -b pg gmon.out")
		case "$o" in *"PAGED:Flat profile:"*) ok "gprof pages too" ;; *) fail "gprof pages too" "$o" ;; esac
		o=$(tty_run "PLUMB_PAGER='sed s/^/PAGED:/' '$PLUMB' gprof --no-pager -b pg gmon.out")
		case "$o" in *PAGED:*) fail "gprof --no-pager" "$o" ;; *"Flat profile:"*) ok "gprof --no-pager" ;; *) fail "gprof --no-pager" "$o" ;; esac
		run env PLUMB_PAGER='sed s/^/PAGED:/' "$PLUMB" gprof -b pg gmon.out
		case "$out" in *PAGED:*) fail "gprof never pages in a pipe" "$out" ;; "Flat profile:"*) ok "gprof never pages in a pipe" ;; *) fail "gprof never pages in a pipe" "$out" ;; esac
	else
		skip "gprof pages too" "gcc -pg did not give a gmon.out"
	fi
else
	skip "pager" "no recording or no script(1)"
fi
if [ -f profile.plumb ]; then
	run env PLUMB_PAGER='sed s/^/PAGED:/' "$PLUMB" report --limit 3
	case "$out" in *PAGED:*) fail "never a pager in a pipe" "$out" ;; *) ok "never a pager in a pipe" ;; esac
	expect_out "a recording's report says what it leaves out" "Not shown: "
	expect_out "... the rows past --limit" "functions past --limit 3"
	run "$PLUMB" report --threshold 2 --hide main
	expect_out "... under the threshold" "under the 2% threshold"
	expect_out "... hidden by --hide" "1 hidden by --hide"
	run "$PLUMB" report --threshold 0
	case "$out" in *"Not shown"*) fail "nothing left out: no line" "$out" ;; *) ok "nothing left out: no line" ;; esac
	run "$PLUMB" report --view tree --threshold 0 --limit 2
	expect_out "a tree says what it leaves out" "past --limit 2"
	case "$out" in *"Not shown: 1 subtree "*|*"Not shown: "[0-9]*" subtrees "*) ok "... counted as subtrees" ;;
	*) fail "... counted as subtrees" "$out" ;; esac
	run "$PLUMB" report --view tree --threshold 0
	case "$out" in *"Not shown"*) fail "a whole tree: no line" "$out" ;; *) ok "a whole tree: no line" ;; esac
fi

# ---- 8 and 9. recording over a profile, a period per event ---------------------
if [ -x build/demo ] && "$PLUMB" record -q --sampler perf -o probe.plumb true 2> probe.err; then
	cp profile.plumb first.plumb
	run "$PLUMB" record build/demo 2
	if cmp -s first.plumb profile.plumb.old; then ok "record keeps the old profile as profile.plumb.old"; else fail "record keeps the old profile as profile.plumb.old" "$(ls -l)"; fi
	printf '%s' "$err" | grep -q "kept the previous profile.plumb as profile.plumb.old" &&
		ok "... and says so" || fail "... and says so" "$err"
	cmp -s first.plumb profile.plumb && fail "... and writes a new one" "same file" || ok "... and writes a new one"
	run "$PLUMB" record -o mine.plumb build/demo 2
	run "$PLUMB" record -q -o mine.plumb build/demo 2
	[ -f mine.plumb.old ] && [ -z "$err" ] && ok "-o FILE keeps FILE.old, quietly with -q" || fail "-o FILE keeps FILE.old, quietly with -q" "$err"
	run "$PLUMB" record -o /dev/null build/demo 2
	[ "$rc" -eq 0 ] && [ -c /dev/null ] && ok "-o /dev/null is left alone" || fail "-o /dev/null is left alone" "$err"

	run "$PLUMB" record -e 'cpu-clock/period=2000000/,page-faults/period=10/' -o per.plumb build/demo 2
	[ "$rc" -eq 0 ] && ok "a period per event" || fail "a period per event" "$err"
	run "$PLUMB" info per.plumb
	expect_out "... both events recorded" "page-faults"
	expect_out "... the rates say which option set them" "cpu-clock every 2000000 (period=), page-faults every 10 (period=)"
	run "$PLUMB" record -c 1000000 -e cpu-clock,page-faults -o shared.plumb build/demo 2
	case "$err" in *"-c 1000000 applies to each event"*"cpu-clock/period=N/,page-faults/period=M/"*) ok "-c over a clock and a count warns" ;;
	*) fail "-c over a clock and a count warns" "$err" ;; esac
	run "$PLUMB" info shared.plumb
	expect_out "... and the rate names -c" "every 1000000 events (-c 1000000)"
	run "$PLUMB" record -o dflt.plumb build/demo 2
	run "$PLUMB" info dflt.plumb
	expect_out "the default rate says so" "1000 Hz (default; -F sets it)"
else
	skip "record in place, periods per event" "perf_event_open cannot sample here"
fi
expect_err "an unknown event term" 2 "unknown term 'perod=10'" "$PLUMB" record -e 'cpu-clock/perod=10/' true
expect_err "an unknown event" 2 "did you mean 'page-faults'?" "$PLUMB" record -e 'page-fautls' true
