# Every kind of input converted to .plumb reads back the same: every view's
# CSV from the .plumb equals the one from the input, Callgrind written from
# the .plumb equals Callgrind written from the input byte for byte, and
# annotate and diff agree. A recording written again is unchanged. The
# sqlite3 example queries of docs/plumb-format.md run on the stores.

views="flat callers callees butterfly tree bottom-up lines files modules parts flame timeline
points inputs fprof heap locks"

# same_views NAME IN STORED [OPTION...]: each view's CSV and exit status from
# IN and from STORED are equal (the options go to both reports).
same_views() {
	name=$1 a=$2 b=$3
	shift 3
	bad=""
	for v in $views; do
		"$PLUMB" report "$@" --view "$v" --format csv "$a" > .va 2> /dev/null
		ra=$?
		"$PLUMB" report "$@" --view "$v" --format csv "$b" > .vb 2> /dev/null
		rb=$?
		if [ "$ra" -ne "$rb" ] || ! cmp -s .va .vb; then
			bad="$bad $v(exit $ra/$rb, $(diff .va .vb | head -3 | tr '\n' ' '))"
		fi
	done
	if [ -z "$bad" ]; then ok "$name: every view the same from .plumb"; else fail "$name: views differ from .plumb" "$bad"; fi
}

# check IN [NAME]: IN -> NAME.plumb, every view compared.
check() {
	n=${2:-$(basename "$1")}
	run "$PLUMB" convert "$1" -o "$n.plumb"
	if [ "$rc" -ne 0 ]; then
		fail "$n: convert to .plumb" "exit $rc" "stderr: $err"
		return
	fi
	same_views "$n" "$1" "$n.plumb"
}

C="$DATA/callgrind"
for f in "$C/jumps.cg" "$C/parts.cg" "$C/inline.cg" "$C/threads.cg" "$C/events.cg" \
	"$C/positions.cg" "$C/calls0.cg" "$C/lsprof.cg" "$DATA/annotate/quirks.cg" \
	"$DATA/cycles/derived.callgrind" "$DATA/cycles/mutual.callgrind" \
	"$DATA/fig21.folded" "$DATA/folded/perf.folded" "$DATA/folded/cpp.folded" \
	"$DATA/pprof/go_cpu.pb.gz" "$DATA/pprof/recorded_threads.pb.gz" \
	"$DATA/pprof/recorded_inline.pb.gz" "$DATA/aprof/app_100_1_4.aprof" \
	"$DATA/aprof/cct_77_0_4.aprof" "$DATA/aprof/v0_old_2011.aprof" \
	"$DATA/aprof/v6_rvms_0.1.2.aprof"; do
	check "$f"
done
same_views "pprof, --inline=no" "$DATA/pprof/recorded_inline.pb.gz" recorded_inline.pb.gz.plumb --inline=no
same_views "parts.cg, --part 2" "$C/parts.cg" parts.cg.plumb --part 2
# Stores of schema version 5 (points in rows, tests/data/store) read as the
# texts they were converted from; the aprof text written from one, too.
for f in cct_77_0_4 written_missing_fields; do
	same_views "version 5 store of $f" "$DATA/aprof/$f.aprof" "$DATA/store/v5_$f.plumb"
	"$PLUMB" convert "$DATA/aprof/$f.aprof" -o "direct-$f.aprof" 2> /dev/null
	run "$PLUMB" convert "$DATA/store/v5_$f.plumb" -o "back-$f.aprof"
	if [ "$rc" -eq 0 ] && cmp -s "direct-$f.aprof" "back-$f.aprof"; then
		ok "$f: aprof from the version 5 store is aprof from the text"
	else
		fail "$f: aprof from the version 5 store differs" "exit $rc" "stderr: $err"
	fi
done

# Version 6 stores (no lines or stacks tables) read as their texts.
same_views "version 6 store of parts.cg" "$C/parts.cg" "$DATA/store/v6_parts.plumb"
same_views "version 6 store of recorded_inline" "$DATA/pprof/recorded_inline.pb.gz" \
	"$DATA/store/v6_recorded_inline.plumb"
same_views "version 6 store of cct_77_0_4" "$DATA/aprof/cct_77_0_4.aprof" \
	"$DATA/store/v6_cct_77_0_4.plumb"

# Callgrind written from the .plumb is Callgrind written from the text.
for f in jumps.cg parts.cg inline.cg quirks.cg events.cg; do
	src=$(find "$DATA" -name "$f" | head -1)
	"$PLUMB" convert "$src" -o "direct-$f" 2> /dev/null
	run "$PLUMB" convert "$f.plumb" -o "back-$f"
	if [ "$rc" -eq 0 ] && cmp -s "direct-$f" "back-$f"; then
		ok "$f: Callgrind from .plumb is byte for byte Callgrind from the text"
	else
		fail "$f: Callgrind from .plumb differs" "exit $rc, $err" "$(diff "direct-$f" "back-$f" | head -5)"
	fi
done

# annotate (the source beside the profile found with -I) and diff.
A="$DATA/annotate"
for o in "" "--inclusive=yes --tree=both"; do
	# shellcheck disable=SC2086
	"$PLUMB" annotate $o -I "$A" "$A/quirks.cg" | tail -n +3 > .aa
	# shellcheck disable=SC2086
	"$PLUMB" annotate $o -I "$A" quirks.cg.plumb | tail -n +3 > .ab
	if [ -s .aa ] && cmp -s .aa .ab; then ok "annotate $o: the same from .plumb"; else fail "annotate $o: differs from .plumb" "$(diff .aa .ab | head -5)"; fi
done
"$PLUMB" diff --format csv "$DATA/fig21.folded" "$DATA/folded/perf.folded" > .da
run "$PLUMB" diff --format csv fig21.folded.plumb perf.folded.plumb
if [ "$rc" -eq 0 ] && [ -s .da ] && [ "$out" = "$(cat .da)" ]; then ok "diff: the same from .plumb"; else fail "diff differs from .plumb" "exit $rc" "$err"; fi

# Two stores read together: each file's parts kept apart, like the texts.
"$PLUMB" convert "$C/parts.cg" "$C/jumps.cg" -o both-text.plumb 2> /dev/null
run "$PLUMB" convert parts.cg.plumb jumps.cg.plumb -o both-stores.plumb
same_views "two stores merged" both-text.plumb both-stores.plumb

# A Callgrind store also keeps its call graph summed by function, which the
# function views read instead of every position: the same figures, also
# for two stores read together (the second merged into the first) and with
# a spec naming a file (which reads every position).
kinds=$(sqlite3 lsprof.cg.plumb "SELECT group_concat(kind, ' ') FROM (SELECT DISTINCT kind FROM bulk ORDER BY kind)" 2> /dev/null)
case "$kinds" in
*fn_arcs*fn_self*) ok "Callgrind store has the function-level blocks ($kinds)" ;;
*) fail "Callgrind store: function-level blocks" "expected fn_arcs and fn_self among the kinds, found '$kinds'" ;;
esac
for f in threads lsprof; do
	for v in flat callers tree; do
		"$PLUMB" report --view $v --format csv "$C/$f.cg" "$C/$f.cg" > .ta 2> /dev/null
		run "$PLUMB" report --view $v --format csv $f.cg.plumb $f.cg.plumb
		if [ "$rc" -eq 0 ] && [ -s .ta ] && [ "$out" = "$(cat .ta)" ]; then
			ok "two $f.cg stores read together: $v the same as the texts"
		else
			fail "two $f.cg stores read together: $v" "exit $rc, $err" "$(echo "$out" | diff .ta - | head -5)"
		fi
	done
done
# A store also keeps the flat view's metrics (kind flat, version 8), which a
# plain flat report reads instead of any cost: the same report as from the
# text with each option a flat view takes (the header's first line names
# the file); an aprof store, whose report is the inputs view, has none.
for s in mutual.callgrind.plumb go_cpu.pb.gz.plumb fig21.folded.plumb; do
	k=$(sqlite3 "$s" "SELECT count(*) FROM bulk WHERE kind = 'flat'" 2> /dev/null)
	if [ "${k:-0}" -gt 0 ]; then ok "$s keeps the flat view ($k blocks)"; else fail "$s: no flat blocks" "found '$k'"; fi
done
k=$(sqlite3 app_100_1_4.aprof.plumb "SELECT count(*) FROM bulk WHERE kind = 'flat'" 2> /dev/null)
if [ "$k" = 0 ]; then ok "an aprof store keeps no flat view"; else fail "aprof store: flat blocks" "expected 0, found '$k'"; fi
# same_report WHAT TEXT STORE OPTIONS...: each option's report (past its
# first line, which names the file) the same from the store as from the text
same_report() {
	what=$1 text=$2 store=$3
	shift 3
	for o in "$@"; do
		# shellcheck disable=SC2086 # the options are words
		"$PLUMB" report $o "$text" 2>&1 | tail -n +2 > .fa
		# shellcheck disable=SC2086
		run "$PLUMB" report $o "$store"
		if [ "$rc" -eq 0 ] && [ -s .fa ] && [ "$(printf '%s\n' "$out" | tail -n +2)" = "$(cat .fa)" ]; then
			ok "$what report ${o:-(no options)}: the same from the store"
		else
			fail "$what report ${o:-(no options)} from the store" "exit $rc, $err" \
				"$(printf '%s\n' "$out" | tail -n +2 | diff .fa - | head -5)"
		fi
	done
}

# kept_view KIND STORE TEXT WHERE WHAT: the store's kept view of KIND is
# what the report reads: with the bulk blocks WHERE deleted (WHAT: what
# they hold), the csv report is the text's; with a KIND block's count
# wrong, it is refused naming the file and the kind. Leaves noKIND.plumb.
kept_view() {
	kind=$1 store=$2 text=$3 where=$4 what=$5
	cp "$store" "no$kind.plumb"
	sqlite3 "no$kind.plumb" "DELETE FROM bulk WHERE $where" 2> /dev/null
	run "$PLUMB" report --format csv "no$kind.plumb"
	if [ "$rc" -eq 0 ] && [ "$out" = "$("$PLUMB" report --format csv "$text")" ]; then
		ok "the $kind report reads the kept view, without the $what"
	else
		fail "$kind report without the $what" "exit $rc, $err"
	fi
	cp "$store" "bad$kind.plumb"
	sqlite3 "bad$kind.plumb" "UPDATE bulk SET count = count + 1 WHERE kind = '$kind'" 2> /dev/null
	run "$PLUMB" report "bad$kind.plumb"
	case "$rc:$err" in
	1:*bad$kind.plumb*$kind*) ok "a damaged $kind block is refused: $err" ;;
	*) fail "damaged $kind block" "exit 1 naming the file and the $kind blocks" "exit $rc: $err" ;;
	esac
}
M="$DATA/cycles/mutual.callgrind"
same_report flat "$M" mutual.callgrind.plumb "" "--sort name" "--sort calls" "--threshold 5" \
	"--limit 2" "--cycles=no" "--select main" "--hide main" "--metric Ir" "--format json" \
	"--format csv" "--width 100"
# It is what the report reads: without the costs' blocks, the flat view is
# still there, and a view that needs them says it cannot read them; a
# damaged flat block is refused with the entity it is at.
kept_view flat mutual.callgrind.plumb "$M" "kind NOT IN ('flat', 'frames')" "costs"
expect_status "a view that needs the costs of a store without them: exit 1" 1 \
	"$PLUMB" report --view callers noflat.plumb

# An aprof store keeps its inputs view's routines with their fitted growth
# (kind inputs), which a plain inputs report reads instead of every point:
# the same report as from the text with each option it takes, also without
# the points' blocks; with --select (charts of the points) it reads them.
AP="$DATA/aprof/app_100_1_4.aprof"
k=$(sqlite3 app_100_1_4.aprof.plumb "SELECT count(*) FROM bulk WHERE kind = 'inputs'" 2> /dev/null)
if [ "${k:-0}" -gt 0 ]; then ok "an aprof store keeps its inputs view ($k blocks)"; else fail "aprof store: no inputs blocks" "found '$k'"; fi
same_report inputs "$AP" app_100_1_4.aprof.plumb "" "--view inputs" "--sort calls" \
	"--sort exclusive" "--sort inclusive" "--sort name" "--sort module" "--limit 3" \
	"--hide read_request" "--format csv" "--format json" "--select read_request" "--part 1" \
	"--view flat"
kept_view inputs app_100_1_4.aprof.plumb "$AP" "kind IN ('points', 'cct', 'cg_self', 'fn_self')" \
	"points"

same_views "inline.cg, --focus util.h" "$C/inline.cg" inline.cg.plumb --focus util.h
same_views "threads.cg, --hide t.c:3" "$C/threads.cg" threads.cg.plumb --hide t.c:3

# gmon.out (gcc -pg) and a recording, where they can be made here.
P="$E2E_DIR/../programs"
if command -v gcc > /dev/null 2>&1 && gcc -pg -g -O1 -fno-inline -o gm "$P/gm_main.c" "$P/gm_second.c" 2> /dev/null &&
	./gm > /dev/null 2>&1 && [ -f gmon.out ]; then
	run "$PLUMB" convert --exe gm gmon.out -o gmon.plumb
	[ "$rc" -eq 0 ] || fail "gmon.out: convert to .plumb" "$err"
	same_views "gmon.out" gmon.out gmon.plumb --exe gm
else
	skip "gmon.out round trip" "cannot build and run a gcc -pg program here"
fi
if command -v gcc > /dev/null 2>&1 && gcc -O1 -g "$P/rec_shares.c" -o shares 2> /dev/null &&
	"$PLUMB" record -q -o rec.plumb ./shares 0.3 > /dev/null 2>&1; then
	run "$PLUMB" convert rec.plumb -o again.plumb
	same_views "a recording written again" rec.plumb again.plumb
	same_views "a recording, --inline=no" rec.plumb again.plumb --inline=no
	# plumb record keeps the flat view too: a report reads it, and says the
	# same as from the recording's costs
	cp rec.plumb rec-costs.plumb
	sqlite3 rec-costs.plumb "DELETE FROM bulk WHERE kind = 'flat'" 2> /dev/null
	k=$(sqlite3 rec.plumb "SELECT count(*) FROM bulk WHERE kind = 'flat'" 2> /dev/null)
	"$PLUMB" report rec-costs.plumb 2>&1 | tail -n +2 > .fa
	run "$PLUMB" report rec.plumb
	if [ "${k:-0}" -gt 0 ] && [ "$rc" -eq 0 ] && [ -s .fa ] &&
		[ "$(printf '%s\n' "$out" | tail -n +2)" = "$(cat .fa)" ]; then
		ok "a recording keeps its flat view ($k blocks), reported as from its costs"
	else
		fail "a recording's kept flat view" "$k flat blocks, exit $rc, $err" \
			"$(printf '%s\n' "$out" | tail -n +2 | diff .fa - | head -5)"
	fi
else
	skip "recording round trip" "plumb record cannot sample here"
fi

# The example queries of docs/plumb-format.md, with the sqlite3 program.
if command -v sqlite3 > /dev/null 2>&1; then
	# the function with the most self cost of event 0, as plumb's flat view says
	top=$(sqlite3 quirks.cg.plumb "SELECT name FROM v_function_costs WHERE event =
		(SELECT name FROM v_events WHERE id = 0) ORDER BY self DESC LIMIT 1")
	want=$("$PLUMB" report --format csv --sort exclusive "$A/quirks.cg" |
		python3 -c 'import csv, sys; print(next(csv.DictReader(sys.stdin))["function"])')
	if [ -n "$top" ] && [ "$top" = "$want" ]; then ok "sqlite3: the top function by self cost is $top, as plumb says"; else fail "sqlite3: top function" "sqlite3 says '$top', plumb '$want'"; fi
	# the functions' self costs add up to the total of event 0
	sum=$(sqlite3 fig21.folded.plumb "SELECT sum(self) FROM v_function_costs WHERE event = (SELECT name FROM v_events WHERE id = 0)")
	total=$("$PLUMB" report --format csv "$DATA/fig21.folded" | awk -F, 'NR > 1 { s += $3 } END { print s }')
	if [ "$sum" = "$total" ]; then ok "sqlite3: v_function_costs add up to the total ($sum)"; else fail "sqlite3: v_function_costs total" "sqlite3 $sum, plumb $total"; fi
	calls=$(sqlite3 calls0.cg.plumb "SELECT caller_name || ' -> ' || callee_name || ': ' || calls FROM v_calls ORDER BY calls DESC LIMIT 1")
	if [ -n "$calls" ]; then ok "sqlite3: v_calls lists calls ($calls)"; else fail "sqlite3: v_calls is empty"; fi
	blocks=$(sqlite3 jumps.cg.plumb "SELECT kind, count(*), sum(count) FROM bulk GROUP BY kind" | tr '\n' ' ')
	case "$blocks" in
	*frames*) ok "sqlite3: the bulk table lists its blocks ($blocks)" ;;
	*) fail "sqlite3: bulk blocks" "$blocks" ;;
	esac
	# Every line's self cost (v_line_costs) is the exclusive cost plumb's
	# lines view gives it, event by event (lines without one: no row).
	for f in quirks.cg parts.cg inline.cg recorded_inline.pb.gz perf.folded; do
		src=$(find "$DATA" -name "$f" | head -1)
		sqlite3 -csv "$f.plumb" "SELECT name, line, coalesce(file, '-'), event, self FROM v_line_costs
			WHERE self != 0" |
			sort > .sa
		"$PLUMB" report --view lines --format csv -t 0 "$src" | python3 -c '
import csv, sys
rows = csv.DictReader(sys.stdin)
out = csv.writer(sys.stdout, lineterminator="\n")
for r in rows:
    for k, v in r.items():
        if k.startswith("exclusive.") and v != "0":
            file = r["file"] or "-"
            out.writerow([r["function"], r["line"] or "0", file, k[len("exclusive."):], v])' |
			sort > .sb
		if [ -s .sa ] && cmp -s .sa .sb; then
			ok "sqlite3: v_line_costs of $f is plumb's lines view ($(wc -l < .sa) rows)"
		else
			fail "sqlite3: v_line_costs of $f" "$(diff .sb .sa | head -5)"
		fi
	done
	# The stacks summed by their functions are the folded stacks plumb
	# writes (these files have fewer stacks than the table keeps).
	for f in perf.folded fig21.folded recorded_inline.pb.gz recorded_threads.pb.gz; do
		sqlite3 "$f.plumb" "SELECT folded || ' ' || sum(weight) FROM v_stacks GROUP BY folded" | sort > .sa
		"$PLUMB" convert "$f.plumb" -o "$f.out.folded" 2> /dev/null
		sort "$f.out.folded" > .sb
		kept=$(sqlite3 "$f.plumb" "SELECT value FROM sql_info WHERE name = 'stacks_kept'")
		if [ -s .sa ] && cmp -s .sa .sb; then
			ok "sqlite3: v_stacks of $f sum up to plumb's folded stacks ($kept stacks)"
		else
			fail "sqlite3: v_stacks of $f" "$(diff .sb .sa | head -5)"
		fi
	done
else
	skip "sqlite3 example queries" "no sqlite3 program"
fi
