# Outputs on a full disk (issue 14; a small tmpfs, root only): report -o,
# diff -o and convert -o to every writer exit 1 with a message naming the
# file and the cause, leave no temporary file, and keep an existing output
# as it was.
cg="$DATA/callgrind/parts.cg"
mkdir -p small
if [ "$(id -u)" != 0 ]; then
	skip "write faults" "not root: cannot mount a small tmpfs"
	return 0 2>/dev/null || exit 0
fi
if ! mount -t tmpfs -o size=16k plumb-e2e small 2> mount.err; then
	skip "write faults" "mount -t tmpfs failed: $(cat mount.err)"
	return 0 2>/dev/null || exit 0
fi
printf 'old\n' > small/old.txt
chmod 600 small/old.txt
head -c 100000 /dev/zero > small/filler 2> /dev/null

# full NAME FILE CMD...: exit 1, FILE and the cause named, FILE kept as it was
full() {
	name=$1 file=$2
	shift 2
	before=$(cat "$file" 2> /dev/null)
	run "$@"
	case "$rc $err" in
	"1 "*"plumb: $file"*"No space left on device"* | "1 "*"plumb: $file"*"disk is full"*) ok "$name" ;;
	*) fail "$name" "exit $rc (expected 1, naming $file and the full disk)" "$err" ;;
	esac
	same "$name: $file as it was" "$(cat "$file" 2> /dev/null)" "$before"
}
full "report -o on a full disk" small/old.txt "$PLUMB" report -o small/old.txt "$cg"
full "diff -o on a full disk" small/d.txt "$PLUMB" diff -o small/d.txt "$cg" "$cg"
for to in plumb callgrind pprof aprof folded speedscope; do
	in=$DATA/folded/perf.folded # what each writer takes whole
	case $to in callgrind) in=$cg ;; aprof) in=$DATA/aprof/v5.aprof ;; esac
	full "convert --to $to on a full disk" "small/out.$to" "$PLUMB" convert "$in" --to "$to" -o "small/out.$to"
done
same "full disk: no temporary file left" "$(ls -A small | sort | tr '\n' ' ')" "filler old.txt "
same "full disk: the kept file keeps its mode" "$(stat -c %a small/old.txt)" 600
umount small
