# The folded stacks reader in two pieces on two cores gives what the serial
# reader gives, byte for byte: views as CSV, convert to folded and Callgrind,
# warnings, errors and exit status, on the test files and generated files
# (bench/gen_folded.py) with a bad line on either side of the split.
# PLUMB_FOLDED_SPLIT=N splits any file at its first line start from N% on
# (tests only; tests/unit/test_folded_par.c checks that splits happen).
python3 "$E2E_DIR/../../bench/gen_folded.py" gen.folded 20000 4000 7
awk 'NR==3000{print "a;b 5 x"; next} {print}' gen.folded > early.folded
awk 'NR==17000{print "a;b;c 18446744073709551616"; next} {print}' gen.folded > late.folded

# both NAME FILE ARGS...: plumb ARGS FILE serially and split at several
# points; the same stdout, stderr and status each time.
both() {
	name=$1 file=$2
	shift 2
	"$PLUMB" "$@" "$file" > serial.out 2> serial.err
	echo "exit $?" >> serial.err
	bad=
	for pct in 0 10 50 90; do
		PLUMB_FOLDED_SPLIT=$pct "$PLUMB" "$@" "$file" > par.out 2> par.err
		echo "exit $?" >> par.err
		cmp -s serial.out par.out && cmp -s serial.err par.err || bad="$bad $pct"
	done
	if [ -z "$bad" ]; then ok "$name"; else fail "$name" "differs when split at:$bad"; fi
}

for f in "$DATA"/folded/* gen.folded early.folded late.folded; do
	b=$(basename "$f")
	for v in flat callers tree bottom-up; do
		both "fpar_${b}_$v" "$f" report --no-pager --format csv --view "$v"
	done
	both "fpar_${b}_folded" "$f" convert --to folded -o -
	both "fpar_${b}_callgrind" "$f" convert --to callgrind -o -
done
