# plumb record under faults (issue 14): the command killed with -9, plumb
# itself sent SIGTERM or SIGINT mid-run, the disk filling up (a small tmpfs,
# root only), with both samplers. Each time either the profile recorded so
# far is readable or the error says why; nothing half-written is left under
# the final name, no temporary file is left behind, and an existing profile
# at the output name is kept whole when the new one cannot be written.
if ! command -v gcc >/dev/null 2>&1; then
	skip "record faults" "gcc not installed"
	return 0 2>/dev/null || exit 0
fi
gcc -O2 -g "$E2E_DIR/../programs/rec_shares.c" -o shares

samplers=signal
if "$PLUMB" record -q --sampler perf -o probe.plumb ./shares 0.01 2> probe.err; then
	samplers="perf signal"
else
	skip "record faults, perf sampler" "perf_event_open cannot sample here: $(head -1 probe.err)"
fi
rm -f probe.plumb

# leftovers DIR: temporary files a writer or the sampler left in DIR
leftovers() { find "$1" -maxdepth 1 \( -name '*.tmp-*' -o -name 'plumb-sampler.*' \) | sort; }

# child_of PID: the command plumb started (waits up to 10 s for it)
child_of() {
	i=0
	while [ $i -lt 100 ]; do
		c=$(pgrep -P "$1" | head -1)
		[ -n "$c" ] && { echo "$c"; return 0; }
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

# readable NAME FILE: plumb info reads FILE and it has samples
readable() {
	run "$PLUMB" info "$2"
	case "$rc $out" in
	"0 "*"Samples:"*) ok "$1" ;;
	*) fail "$1" "plumb info $2: exit $rc" "$err" "$out" ;;
	esac
}

for s in $samplers; do
	# the command killed with -9 mid-run: its status as a shell gives it,
	# the samples taken until then saved
	"$PLUMB" record -q --sampler "$s" -o k9.plumb ./shares 20 2> k9.err &
	pp=$!
	if c=$(child_of $pp); then
		sleep 1
		kill -9 "$c"
	else
		kill -9 $pp
	fi
	wait $pp
	same "$s: command killed with -9: plumb exits 137" "$?" 137
	readable "$s: command killed with -9: the profile so far is readable" k9.plumb

	# plumb itself sent SIGTERM / SIGINT: passed on to the command, which
	# stops; the profile is written, plumb exits as the command did
	for sig in TERM INT; do
		"$PLUMB" record -q --sampler "$s" -o "$sig.plumb" ./shares 20 2> "$sig.err" &
		pp=$!
		child_of $pp > /dev/null
		sleep 1
		kill -s "$sig" $pp
		wait $pp
		st=$?
		want=143
		[ "$sig" = INT ] && want=130
		same "$s: plumb sent SIG$sig: exits $want" "$st" "$want"
		readable "$s: plumb sent SIG$sig: the profile so far is readable" "$sig.plumb"
	done
	same "$s: no temporary file left" "$(leftovers .)" ""
done

# The disk filling up: a tmpfs of 48 KiB (a .plumb file takes more)
mkdir -p small
if [ "$(id -u)" != 0 ]; then
	skip "record faults, disk full" "not root: cannot mount a small tmpfs"
elif ! mount -t tmpfs -o size=48k plumb-e2e small 2> mount.err; then
	skip "record faults, disk full" "mount -t tmpfs failed: $(cat mount.err)"
else
	for s in $samplers; do
		expect_err "$s: disk full: exit 1, the file and the cause named" 1 "small/p.plumb: cannot write" \
			"$PLUMB" record -q --sampler "$s" -o small/p.plumb ./shares 0.3
		case "$err" in
		*"disk is full"* | *"No space left"*) ok "$s: disk full: the message says the disk is full" ;;
		*) fail "$s: disk full: the message says the disk is full" "$err" ;;
		esac
		same "$s: disk full: nothing left on the disk" "$(ls -A small)" ""
	done
	# an existing profile at the output name stays whole (a .plumb file
	# of a few pages, then the rest of the disk filled)
	umount small
	mount -t tmpfs -o size=256k plumb-e2e small
	s=${samplers%% *}
	"$PLUMB" convert "$DATA/folded/simple.folded" -o small/old.plumb
	readable "disk full: the existing profile is there first" small/old.plumb
	sum=$(cksum < small/old.plumb)
	head -c 1000000 /dev/zero > small/filler 2> /dev/null
	expect_status "$s: disk full over an existing profile: exit 1" 1 \
		"$PLUMB" record -q --sampler "$s" -o small/old.plumb ./shares 0.3
	same "$s: disk full: the existing profile is unchanged" "$(cksum < small/old.plumb)" "$sum"
	same "$s: disk full: no temporary file left" "$(leftovers small)" ""
	rm -f small/filler small/old.plumb

	# the signal sampler's own files (in TMPDIR) filling the disk: the
	# samples written before are saved, and plumb says they are not all
	umount small
	mount -t tmpfs -o size=8k plumb-e2e small
	TMPDIR=$PWD/small run "$PLUMB" record -q --sampler signal -o tmpfull.plumb ./shares 2
	case "$rc $err" in
	"1 "*"No space left on device: the signal sampler could not write all its samples"*)
		ok "signal: TMPDIR full: exit 1, the cause said" ;;
	*) fail "signal: TMPDIR full: exit 1, the cause said" "exit $rc" "$err" ;;
	esac
	readable "signal: TMPDIR full: the samples written before are readable" tmpfull.plumb
	same "signal: TMPDIR full: the sampler's files are removed" "$(ls -A small)" ""
	umount small
fi
