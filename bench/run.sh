#!/bin/sh
# Run the benchmarks: each compares plumb with a peer tool in one run and
# writes its own section of bench/RESULTS.md.
#
#   sh bench/run.sh                 every benchmark (make bench)
#   sh bench/run.sh callgrind gprof only these
#
# Benchmarks: folded (bench/folded.sh), callgrind (bench/callgrind.sh),
# gprof (bench/gprof.sh), record (bench/record.sh), record_signal
# (bench/record_signal.sh), inputs (bench/inputs.sh), inputs_real
# (bench/inputs_real.sh), aprof (bench/aprof.sh), pprof (bench/pprof.sh),
# store (bench/store.sh).
# Environment variables are passed on to each.
set -eu
cd "$(dirname "$0")/.."
names=${*:-folded callgrind gprof record record_signal inputs inputs_real aprof pprof store}
for n in $names; do
	script=bench/$n.sh
	if [ ! -f "$script" ]; then
		[ $# -eq 0 ] && continue
		echo "bench: no benchmark '$n' (bench/$n.sh)" >&2
		exit 2
	fi
	echo "== bench: $n"
	sh "$script"
done
