#!/bin/sh
# make demo: plumb's main job on the bundled example. examples/demo.c is
# built with -O2 and no frame pointers, recorded with plumb record (every
# thread, complete stacks through the CFI), and reported. The folded
# profile perf once recorded of it (examples/demo.folded) shows the reader.
set -eu
plumb=$1
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(dirname "$plumb")
out="$build/demo.plumb"
show() {
	echo "\$ plumb $*"
	"$plumb" "$@"
	echo
}
${CC:-cc} -O2 -g -fomit-frame-pointer -o "$build/demo" "$top/examples/demo.c"
show record -o "$out" "$build/demo"
show report "$out" --limit 12
show report "$out" --butterfly quicksort
show report "$out" --view tree --threshold 5
show report "$out" --view lines --limit 8
show report "$top/examples/demo.folded" --limit 5
cat <<MSG
plumb is at $plumb. For the README's commands, put it on your PATH:
    export PATH="$(cd "$build" && pwd):\$PATH"
or install it (program, library, man pages):
    make install PREFIX=\$HOME/.local     (or PREFIX=/usr/local as root)
MSG
