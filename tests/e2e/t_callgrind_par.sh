# The Callgrind reader in two pieces on two cores gives what the serial
# reader gives, byte for byte: every view's CSV, the warnings, the errors
# and exit status, and `plumb convert --to callgrind` (which reads every
# address: serially today), on every test file
# and on generated files of several parts with compressed names used across
# the split (tests/gen_cg_parts.py). PLUMB_CG_SPLIT=N forces a split at the
# first safe line from N% of the file on, whatever its size (tests only).
# (tests/unit/test_callgrind_par.c checks that the splits do happen.)
cgdata="$DATA/callgrind"
gen="$E2E_DIR/../gen_cg_parts.py"
python3 "$gen" parts.cg 4 250 11
python3 "$gen" single.cg 1 400 12
python3 "$gen" late_error.cg 3 250 13 0.85
python3 "$gen" early_error.cg 3 250 14 0.15

# both NAME FILE ARGS...: plumb ARGS FILE serially and split at several
# points; the same stdout, stderr and status each time.
both() {
	name=$1 file=$2
	shift 2
	"$PLUMB" "$@" "$file" > serial.out 2> serial.err
	echo "exit $?" >> serial.err
	bad=
	for pct in 10 50 90; do
		PLUMB_CG_SPLIT=$pct "$PLUMB" "$@" "$file" > par.out 2> par.err
		echo "exit $?" >> par.err
		if ! cmp -s serial.out par.out || ! cmp -s serial.err par.err; then
			bad="$bad $pct"
			cp par.out "par$pct.out"
			cp par.err "par$pct.err"
		fi
	done
	if [ -z "$bad" ]; then
		ok "$name"
	else
		fail "$name" "differs from the serial reader when split at:$bad" \
			"$(diff serial.out "par${bad##* }.out" | head -5)" \
			"$(diff serial.err "par${bad##* }.err" | head -5)"
	fi
}

# Three split points and four views: tests/unit/test_callgrind_par.c splits
# every file at every few percent; here the command line is the point (and
# the suite runs twice, once under the sanitizers).
for f in "$cgdata"/*.cg "$cgdata"/bad/*.cg parts.cg single.cg late_error.cg early_error.cg; do
	b=$(basename "$f" .cg)
	for v in flat callees tree threads; do
		both "par_${b}_$v" "$f" report --no-pager --format csv --view "$v"
	done
done
for f in parts.cg single.cg late_error.cg early_error.cg; do
	both "par_$(basename "$f" .cg)_convert" "$f" convert --to callgrind -o -
done
