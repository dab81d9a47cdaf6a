# Bad input: one clear message naming the file and where, exit status 1,
# never a crash; bad usage: exit status 2.

expect_err "missing file" 1 "nosuch.folded: cannot open: No such file or directory" "$PLUMB" report nosuch.folded
mkdir adir
expect_err "a directory" 1 "adir: is a directory" "$PLUMB" report adir
: > empty.txt
expect_err "an empty file" 1 "empty.txt: empty file" "$PLUMB" report empty.txt
head -c 4096 /dev/urandom > random.bin
printf '\x7fELF' | cat - random.bin > binary.bin
expect_err "a file of no known format" 1 "binary.bin: unknown format" "$PLUMB" report binary.bin
printf 'gmon\001\000\000\000\000\000\000\000\000\000\000\000' > gmon.out
expect_err "a file of a format not yet read (gmon.out)" 1 "gmon.out: unknown format" "$PLUMB" report gmon.out

# Folded: the line and what was expected.
printf 'main;a 1\nmain;b 2\nmain;c\n' > nocount.folded
expect_err "folded line without a count" 1 "nocount.folded:3:" "$PLUMB" report nocount.folded
printf 'main;a 1\nmain;b -2\n' > neg.folded
expect_err "negative count" 1 "neg.folded:2:" "$PLUMB" report neg.folded
printf 'main;a 1\nmain;b 18446744073709551616\n' > big.folded
expect_err "count over 64 bits" 1 "big.folded:2:" "$PLUMB" report big.folded
printf 'main;a 18446744073709551615\nmain;a 1\n' > sum.folded
expect_err "counts whose sum overflows" 1 "sum.folded:2:" "$PLUMB" report sum.folded
printf 'main;a 1\nmain;;b 2\n' > emptyframe.folded
expect_err "empty frame" 1 "emptyframe.folded:2:" "$PLUMB" report emptyframe.folded
printf 'main;a 1\nmain;b 1x\n' > junk.folded
expect_err "count with junk" 1 "junk.folded:2:" "$PLUMB" report junk.folded

# The store: truncated, foreign, not a database.
"$PLUMB" convert "$DATA/fig21.folded" -o good.plumb
head -c 3000 good.plumb > truncated.plumb
expect_err "truncated .plumb" 1 "truncated.plumb" "$PLUMB" report truncated.plumb
python3 -c "import sqlite3; c=sqlite3.connect('foreign.db'); c.execute('create table t(x)'); c.commit()"
expect_err "foreign SQLite file" 1 "foreign.db: not a plumb profile" "$PLUMB" report foreign.db
printf 'SQLite format 3\000garbage garbage garbage' > fake.plumb
expect_err "a SQLite header and nothing else" 1 "fake.plumb" "$PLUMB" report fake.plumb

# Unreadable (as an unprivileged user: root reads everything).
if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	cp "$DATA/fig21.folded" secret.folded
	chmod 000 secret.folded
	chmod 755 .
	expect_err "unreadable file" 1 "secret.folded: cannot open: Permission denied" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$PLUMB" report "$PWD/secret.folded"
else
	cp "$DATA/fig21.folded" secret.folded
	chmod 000 secret.folded
	expect_err "unreadable file" 1 "secret.folded: cannot open: Permission denied" "$PLUMB" report secret.folded
fi

# Outputs: an existing file is replaced only by a complete one.
printf 'precious\n' > out.plumb
expect_err "convert from a bad input" 1 "nocount.folded:3:" "$PLUMB" convert nocount.folded -o out.plumb
same "existing output untouched after a failed convert" "$(cat out.plumb)" "precious"
same "no temporary file left behind" "$(ls | grep -c 'tmp-')" 0
expect_err "output into a missing directory" 1 "nodir/x.plumb: cannot create output" "$PLUMB" convert "$DATA/fig21.folded" -o nodir/x.plumb
expect_status "convert replaces an existing output" 0 "$PLUMB" convert "$DATA/fig21.folded" -o out.plumb
run "$PLUMB" info out.plumb
expect_out "the replaced output is a profile" "Format:    plumb"

# Usage errors: exit 2.
expect_err "unknown command" 2 "'frobnicate' is not a command" "$PLUMB" frobnicate
expect_err "unknown option" 2 "unknown option '--bogus'" "$PLUMB" report --bogus x
expect_err "unknown view" 2 "unknown view 'sideways'" "$PLUMB" report --view sideways x
expect_err "bad limit" 2 "--limit expects" "$PLUMB" report --limit -3 x
expect_err "bad threshold" 2 "--threshold expects" "$PLUMB" report --threshold 150 x
expect_err "bad symspec line" 2 "symspec 'a.c:12x'" "$PLUMB" report --select a.c:12x x
expect_err "convert without -o" 2 "no output file" "$PLUMB" convert x
expect_err "convert to an unknown format" 2 "unknown format 'pdf'" "$PLUMB" convert x -o y --to pdf
# An output name no format owns is an error, never a .plumb store by default.
for name in out.json profile out.pdf; do
	expect_err "convert -o $name: no format owns the name" 2 "no known format has names like '$name'" \
		"$PLUMB" convert "$DATA/fig21.folded" -o "$name"
	same "convert -o $name: nothing written" "$(ls "$name" 2>&1 >/dev/null | grep -c 'No such')" 1
done
expect_status "convert -o out.cg writes Callgrind" 0 "$PLUMB" convert "$DATA/fig21.folded" -o out.cg
same "out.cg is a Callgrind file" "$(head -1 out.cg)" "# callgrind format"
expect_status "--to names the format of any name" 0 "$PLUMB" convert "$DATA/fig21.folded" --to folded -o stacks.out
same "--to folded wrote folded stacks" "$(sort stacks.out)" "$(sort "$DATA/fig21.folded")"
expect_err "option without its value" 2 "needs a value" "$PLUMB" report --view
expect_status "no command" 2 "$PLUMB"

# info with a failing file among good ones: still valid JSON, status 1.
run "$PLUMB" info --format json "$DATA/fig21.folded" nosuch "$DATA/fig21.folded"
same "info exit status with a missing file" "$rc" 1
py "info json stays valid around a missing file" 'import json,sys; assert len(json.load(sys.stdin)) == 2'
# A full disk on standard output is an error, not silence.
expect_err "convert -o - to a full device" 1 "cannot write to standard output" sh -c "\"$PLUMB\" convert \"$DATA/fig21.folded\" -o - > /dev/full"
expect_err "report to a full device" 1 "cannot write" sh -c "\"$PLUMB\" report \"$DATA/fig21.folded\" > /dev/full"

# Derived events defined between function bodies (one of them a bad formula,
# then redefined) once overflowed a node's cost vector, made before the event
# existed: now every vector is widened as events are added.
printf 'event: S = Ir\nevents: Ir Dr Dw\nfn=x\nevent: Both = Ir + Dw junk\nfn=x\nevent: T = Ir\nevent: Both = Ir + Dw\nfn=main\n' > late-events.cg
for c in report info annotate; do
	run "$PLUMB" $c late-events.cg
	same "events after fn= lines: $c exits 0" "$rc" 0
done
run "$PLUMB" convert late-events.cg -o late-events.callgrind
same "events after fn= lines: convert exits 0" "$rc" 0

# Outputs (docs/plumb.1, FILES): a special file is written into, never
# replaced; a replaced file keeps its mode; a link is followed as cp does.
fig="$DATA/fig21.folded"
expect_err "convert -o /dev/full: the device's error, exit 1" 1 "/dev/full: cannot write: No space left on device" \
	"$PLUMB" convert "$fig" --to callgrind -o /dev/full
same "/dev/full is still a character device" "$(stat -c %F /dev/full)" "character special file"
expect_status "convert -o /dev/null" 0 "$PLUMB" convert "$fig" --to plumb -o /dev/null
same "/dev/null is still a character device" "$(stat -c %F /dev/null)" "character special file"
mkfifo out.fifo
cat out.fifo > from-fifo.txt &
expect_status "convert into a named pipe" 0 "$PLUMB" convert "$fig" --to folded -o out.fifo
wait
same "the pipe's reader got the stacks" "$(sort from-fifo.txt)" "$(sort "$fig")"
same "the named pipe is still a pipe" "$(stat -c %F out.fifo)" "fifo"
"$PLUMB" convert "$fig" -o private.plumb
chmod 600 private.plumb
expect_status "convert replaces a 0600 .plumb" 0 "$PLUMB" convert "$fig" -o private.plumb
same "the replaced file keeps mode 0600" "$(stat -c %a private.plumb)" 600
if [ "$(id -u)" -eq 0 ]; then
	chown 65534:65534 private.plumb
	"$PLUMB" convert "$fig" -o private.plumb
	same "run as root, the replaced file keeps its owner and group" "$(stat -c %u:%g:%a private.plumb)" "65534:65534:600"
else
	skip "the replaced file keeps its owner" "not root: only root can give a file away"
fi
"$PLUMB" convert "$fig" -o target.folded
ln -s target.folded link.folded
echo 'x 1' > target.folded
expect_status "convert -o a symbolic link" 0 "$PLUMB" convert "$fig" -o link.folded
same "the link stays a link" "$(stat -c %F link.folded)" "symbolic link"
same "the link's target got the output" "$(sort target.folded)" "$(sort "$fig")"
ln -s made-through-link.folded dangling.folded
expect_status "convert -o a dangling link creates its target" 0 "$PLUMB" convert "$fig" -o dangling.folded
same "the dangling link's target now exists" "$(sort made-through-link.folded 2>&1)" "$(sort "$fig")"
# Standard output: a write error is exit 1 with a message, for every command.
printf 'events: Ir\nfl=a.c\nfn=main\n1 5\n' > small.cg
for c in "report $fig" "info $fig" "annotate small.cg" "gprof --help" "report --format csv $fig"; do
	expect_err "$c > /dev/full: exit 1, says why" 1 "No space left on device" sh -c "\"$PLUMB\" $c > /dev/full"
done

# Costs whose sum does not fit 64 bits: every command refuses the file, by
# name, and convert writes nothing (it used to write a .plumb no one could read).
printf 'a;b;c 18446744073709551615\na;b;d 1\n' > overflow.folded
for c in report info annotate; do
	expect_err "$c: costs past 64 bits name the file" 1 "overflow.folded: the costs add up to more than 64 bits" "$PLUMB" $c overflow.folded
done
expect_err "convert: costs past 64 bits" 1 "overflow.folded: the costs add up" "$PLUMB" convert overflow.folded -o overflow.plumb
same "convert wrote nothing" "$(ls overflow.plumb 2>/dev/null)" ""
printf 'a;b;c 18446744073709551615\n' > max.folded
printf 'a;b;d 1\n' > one.folded
expect_err "two files whose sum overflows: the second is named" 1 "one.folded: the costs add up" "$PLUMB" report max.folded one.folded

# Lines have a bound (16 MiB) and text holds no NUL: a header then 20 MB
# without a newline, or a sparse file, is refused at its byte offset in
# bounded memory (it used to take as much memory as the line, or read the
# NULs of a 5 GB sparse file as empty lines and exit 0).
{ printf 'events: Ir\nfn=main\n'; head -c 20000000 /dev/zero | tr '\0' 'x'; } > long-line.cg
run /usr/bin/time -f '%M' "$PLUMB" report long-line.cg
case "$err" in
*"long-line.cg: byte offset 19: a line of more than 16 MiB"*) ok "a 20 MB line is refused at its offset" ;;
*) fail "a 20 MB line is refused at its offset" "exit $rc" "$err" ;;
esac
kb=$(printf '%s\n' "$err" | tail -1)
[ "$rc" -eq 1 ] && [ "$kb" -lt 60000 ] && ok "the long line is refused in bounded memory (${kb} KB)" ||
	fail "the long line is refused in bounded memory" "exit $rc, peak ${kb} KB (expected < 60000)"
printf 'events: Ir\nfn=main\n1 5\n' > sparse.cg
truncate -s 200M sparse.cg
expect_err "a sparse file: the NUL bytes are refused at their offset" 1 "sparse.cg: byte offset 23: a NUL byte" "$PLUMB" report sparse.cg
rm -f sparse.cg long-line.cg

# A gmon.out histogram record with no bins: report --exe credits nothing,
# gprof refuses it and names the file (plumb itself stands in for a.out).
printf 'gmon\001\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\020\000\000\000\000\000\000\000\020\000\000\000\000\000\000\000\000\000\000\144\000\000\000seconds\000\000\000\000\000\000\000\000s' > zero-bins.gmon
expect_err "gprof: a histogram with no bins names the file" 1 "zero-bins.gmon: histogram record (at byte 20) with no bins" \
	"$PLUMB" gprof "$PLUMB" zero-bins.gmon

# A .plumb cost of 2^64 - 1 (the last varint of the last CCT block, the
# last node's cost of the one event): with any other cost the total
# overflows, and the message names the file. The block is zstd data
# (docs/plumb-format.md), edited here with the zstd program. The flat view
# the store keeps goes (a plain report would read it instead of the costs).
"$PLUMB" convert "$DATA/fig21.folded" -o minus-one.plumb
if command -v zstd >/dev/null 2>&1; then
	python3 - minus-one.plumb <<'EOF'
import sqlite3, subprocess, sys
d = sqlite3.connect(sys.argv[1])
first, data = d.execute("SELECT first, data FROM bulk WHERE kind = 'cct' ORDER BY first DESC").fetchone()
raw = subprocess.run(["zstd", "-dcq"], input=data, capture_output=True, check=True).stdout
vals, v, shift = [], 0, 0
for b in raw:
    v |= (b & 0x7f) << shift
    shift += 7
    if b < 0x80:
        vals.append(v)
        v, shift = 0, 0
vals[-1] = 2**64 - 1
out = bytearray()
for v in vals:
    while v >= 0x80:
        out.append(v & 0x7f | 0x80)
        v >>= 7
    out.append(v)
z = subprocess.run(["zstd", "-cq"], input=bytes(out), capture_output=True, check=True).stdout
d.execute("UPDATE bulk SET size = ?, data = ? WHERE kind = 'cct' AND first = ?", (len(out), z, first))
d.execute("DELETE FROM bulk WHERE kind = 'flat'")
d.commit()
EOF
	for c in report info; do
		expect_err "a .plumb cost of 2^64 - 1: $c names the file" 1 "minus-one.plumb: " "$PLUMB" $c minus-one.plumb
	done
else
	skip "a .plumb cost of 2^64 - 1" "no zstd program to edit the file with"
fi
