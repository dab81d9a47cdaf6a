#!/bin/sh
# make demo: show plumb's main job on the bundled example. Until the
# collector lands, the example is a profile perf recorded of examples/demo.c
# (folded stacks); plumb stores it as .plumb and reports it.
set -eu
plumb=$1
top=$(cd "$(dirname "$0")/.." && pwd)
out="$top/build/demo.plumb"
show() {
	echo "\$ plumb $*"
	"$plumb" "$@"
	echo
}
show convert "$top/examples/demo.folded" -o "$out"
show info "$out"
show report "$out" --limit 12
show report "$out" --butterfly quicksort
show report "$out" --view tree --threshold 5
