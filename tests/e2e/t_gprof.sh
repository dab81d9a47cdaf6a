# plumb gprof against GNU gprof 2.40: programs built with gcc -pg here
# (tests/programs/gp_*.c: recursion, a two-member cycle, two separate
# cycles, static functions, a function never called, calls never made,
# second and third source files; PIE and -no-pie), run, then every option set is run
# through both and the outputs must be the same bytes.
gp_src=$(cd "$E2E_DIR/../programs" && pwd)

if ! command -v gcc > /dev/null 2>&1 || ! command -v gprof > /dev/null 2>&1; then
	skip "t_gprof" "gcc or gprof is not installed"
	return 0
fi
case "$(gprof --version 2>/dev/null | head -1)" in
*" 2.40"*) ;;
*) skip "t_gprof" "the comparisons are for GNU gprof 2.40 ($(gprof --version | head -1))"; return 0 ;;
esac

# Sources are copied so that the debug info names them in this directory.
mkdir -p src
cp "$gp_src"/gp_main.c "$gp_src"/gp_second.c "$gp_src"/gp_cycles.c "$gp_src"/gp_third.c src/
(cd src && gcc -pg -g -O0 -o ../gpm gp_main.c gp_second.c &&
	gcc -pg -g -O0 -no-pie -o ../gpm_np gp_main.c gp_second.c &&
	gcc -pg -g -O0 -o ../gpc gp_cycles.c &&
	gcc -pg -g -O0 -o ../gpt gp_third.c gp_cycles.c &&
	gcc -pg -g -O2 -o ../gpmo gp_main.c gp_second.c &&
	gcc -pg -g -O2 -o ../gpco gp_cycles.c) 2> cc.err
if [ ! -x gpm ] || [ ! -x gpm_np ] || [ ! -x gpc ]; then
	fail "gcc -pg builds the test programs" "$(cat cc.err)"
	return 0
fi
./gpm > /dev/null && mv gmon.out gpm.gmon
./gpm 2 > /dev/null && mv gmon.out gpm2.gmon
./gpm_np > /dev/null && mv gmon.out gpm_np.gmon
./gpc > /dev/null && mv gmon.out gpc.gmon
./gpt > /dev/null && mv gmon.out gpt.gmon
./gpmo > /dev/null && mv gmon.out gpmo.gmon
./gpco > /dev/null && mv gmon.out gpco.gmon
for f in gpm.gmon gpm2.gmon gpm_np.gmon gpc.gmon; do
	[ -s "$f" ] || fail "the program wrote $f"
done

# The histogram must have samples, or the time columns compare nothing.
run gprof -b -p gpm gpm.gmon
case "$out" in
*"no time accumulated"*) skip "samples" "no histogram samples in this run; time columns are all zero" ;;
*) ok "gpm.gmon has histogram samples" ;;
esac

# same_as_gprof NAME ARGS...: plumb gprof ARGS and gprof ARGS give the same
# stdout bytes and the same exit status.
same_as_gprof() {
	name=$1
	shift
	"$PLUMB" gprof "$@" > p.out 2> p.err
	prc=$?
	gprof "$@" > g.out 2> g.err
	grc=$?
	if [ $prc -ne $grc ]; then
		fail "$name" "exit $prc, gprof exits $grc" "stderr: $(head -3 p.err)"
	elif cmp -s p.out g.out; then
		ok "$name"
	else
		fail "$name" "plumb gprof $* differs from gprof:" "$(diff p.out g.out | head -15)"
	fi
	case "$(cat p.err)" in
	*AddressSanitizer*|*"runtime error"*|*LeakSanitizer*) fail "$name: sanitizer" "$(head -20 p.err)" ;;
	esac
}

# Every report on its own and together, with the layout options.
for prog in gpm gpm_np gpc; do
	for opts in "" "-p" "-q" "-P" "-Q" "-z" "-w 120" "-w 40" "-T" "-T -z" "-l" "-l -z" "-l -T" \
		"-A" "-A -z" "-C" "-C -z" "-i" "-a" "-a -z" "-c" "-c -z" "-L" "-l -L" "-x -A" "-l -A" \
		"-l -A -x" "-l -C" "-m 500 -A" "-t 2 -A" "-t 0 -A" "-z -m 0 -A" "-p -q -C -A -i" \
		"--inline-file-names" "--inline-file-names -L -z" "--inline-file-names -T" "--inline-file-names -l" \
		"-D" "-D -z" "-D -l -z" "-a -l -z"; do
		# shellcheck disable=SC2086
		same_as_gprof "$prog -b $opts" -b $opts $prog $prog.gmon
	done
done

# Symspecs: function, file, file:function, line, file:line, from/to, with
# every option that takes one, and ones that match nothing (no effect).
while IFS= read -r opts; do
	# shellcheck disable=SC2086
	same_as_gprof "gpm -b $opts" -b $opts gpm gpm.gmon
done <<'EOF'
-pburn
-ppong -pping
-pgp_second.c
-pgp_main.c:burn
-p15
-pgp_main.c:31
-Pburn
-pping -Pburn
-ppong -Ppong
-pnosuch.c
-pnosuch
-pgp_main:
-p:mix
-qping
-qburn
-Qburn
-qmain/burn
-Qmain/burn
-qping -qfact
-qgp_second.c
-e burn
-E burn
-f ping
-F ping
-n ping
-N burn
-n burn -N burn
-N gp_second.c
-k main/
-k /burn
-k pong/ping
-k ping/burn
-k gp_second.c/
-k /gp_second.c:mix
-k main/ -z
-k main/ -k /mix
-k /burn -k /fact
-k /fact -k /burn
-Aburn
-A -Jburn
-Agp_second.c
-Jgp_main.c
-Cburn
-C -Zburn
-Zgp_second.c
-ppong -q
-T -ppong
-T -qping
-z -Qburn
-l -pburn
-l -qping
-l -p31
-l -k main/
-l -A -m 400
-l -N burn
-c -qmain
EOF
while IFS= read -r opts; do
	# shellcheck disable=SC2086
	same_as_gprof "gpc -b $opts" -b $opts gpc gpc.gmon
done <<'EOF'
-pspin -pca
-k /spin
-Nspin
-n spin
-n ca
-N cb
-E dd
-F cc
-k ca/cb
-k cc/
-qca/cb
-Qcc/ca
-qdd
-ede
-z -k dd/
EOF

# -O2: inlined functions, outlined parts (ca.part.0), padding; with -l
# the line symbols are named after the innermost (inlined) function.
for prog in gpmo gpco; do
	for opts in "" "-z" "-c -z" "-a -z" "-l" "-l -z" "-l -q" "-l -C -z" "-l -A" "-A -z" "-C -z"; do
		# shellcheck disable=SC2086
		same_as_gprof "$prog (-O2) -b $opts" -b $opts $prog $prog.gmon
	done
done

# A static executable: all of libc's symbols, among them static clones
# ("x.constprop.0") that gprof keeps or drops by the names that follow
# theirs in .strtab.
if (cd src && gcc -static -pg -g -O0 -o ../gpms gp_main.c gp_second.c) 2> /dev/null && ./gpms > /dev/null &&
	mv gmon.out gpms.gmon; then
	for opts in "" "-z" "-l" "-l -z" "-z -T" "-A" "-C -z" "-c -z" "-a"; do
		# shellcheck disable=SC2086
		same_as_gprof "gpms (static) -b $opts" -b $opts gpms gpms.gmon
	done
else
	skip "static executable" "gcc -static -pg does not link here"
fi

# -A lists files in the order gprof meets them in the ELF symbol table:
# gp_third.c, first on the link line, has no static function.
for opts in "-A -z" "-C -z" "-z -A -l" "-A" "-z"; do
	# shellcheck disable=SC2086
	same_as_gprof "gpt -b $opts" -b $opts gpt gpt.gmon
done

# The mcount family (here __mcount_internal) is out of every report by
# default, and back in when a spec names it.
cp "$gp_src"/gp_mcount.c src/
if (cd src && gcc -pg -g -O0 -o ../gpmc gp_mcount.c) && ./gpmc > /dev/null && mv gmon.out gpmc.gmon; then
	for opts in "" "-z" "-l" "-T" "-p__mcount_internal" "-q__mcount_internal" "-n__mcount_internal" "-C"; do
		# shellcheck disable=SC2086
		same_as_gprof "gpmc -b $opts" -b $opts gpmc gpmc.gmon
	done
else
	fail "gp_mcount.c builds and runs"
fi

# C++: names demangled in the reports, specs on mangled names.
if command -v g++ > /dev/null 2>&1; then
	cp "$gp_src"/gp_cxx.cc src/
	if (cd src && g++ -pg -g -O0 -o ../gpx gp_cxx.cc) && ./gpx > /dev/null && mv gmon.out gpx.gmon; then
		for opts in "" "-z" "--no-demangle" "-z -T" "-p_ZN2ns4workEm" "-qmain" "-k _ZN3Acc3addEm/" \
			"-C" "-A" "-l" "-l --no-demangle" "-l -q"; do
			# shellcheck disable=SC2086
			same_as_gprof "gpx -b $opts" -b $opts gpx gpx.gmon
		done
	else
		fail "gp_cxx.cc builds and runs"
	fi
else
	skip "C++" "g++ is not installed"
fi

# Two sources with one basename (a/util.c, b/util.c): a file spec names
# the one gprof met last, whichever the link order.
mkdir -p dup/a dup/b
cat > dup/a/util.c <<'CEOF'
unsigned long ua(unsigned long n) { unsigned long x = n; for (unsigned long i = 0; i < n; i++) x = x * 5 + i; return x; }
CEOF
cat > dup/b/util.c <<'CEOF'
static unsigned long helper(unsigned long n) { return n ^ 3; }
unsigned long ub(unsigned long n) { unsigned long x = n; for (unsigned long i = 0; i < n; i++) x = x * 7 + helper(i); return x; }
CEOF
cat > dup/main.c <<'CEOF'
#include <stdio.h>
unsigned long ua(unsigned long); unsigned long ub(unsigned long);
int main(void) { unsigned long t = 0; for (int i = 0; i < 300; i++) t += ua(200000) + ub(100000); printf("%lu\n", t & 1); return 0; }
CEOF
for order in "a/util.c b/util.c main.c" "b/util.c a/util.c main.c"; do
	# shellcheck disable=SC2086
	if (cd dup && gcc -pg -g -O0 -o ../gpd $order && ../gpd > /dev/null && mv gmon.out ../gpd.gmon); then
		for opts in "-putil.c" "-Putil.c" "-qutil.c" "-A" "-Autil.c" "-k util.c/" "-l -putil.c"; do
			# shellcheck disable=SC2086
			same_as_gprof "[$order] -b $opts" -b $opts gpd gpd.gmon
		done
	else
		fail "the util.c pair builds and runs"
	fi
done

# Long options.
for opts in "--flat-profile=burn" "--no-flat-profile=burn" "--graph=ping" "--no-graph" "--no-graph=burn" \
	"--exec-counts" "--no-exec-counts=burn --exec-counts" "--annotated-source=gp_second.c" \
	"--no-annotated-source" "--time=ping" "--no-time=burn" "--width=40" "--display-unused-functions" \
	"--line" "--traditional" "--static-call-graph" "--no-static" "--print-path --line" "--file-info" \
	"--annotated-source --table-length=3 --min-count=2" "--annotated-source --all-lines" \
	"--file-format=m" "--ignore-non-functions" "--no-demangle"; do
	# shellcheck disable=SC2086
	same_as_gprof "gpm --brief $opts" --brief $opts gpm gpm.gmon
done

# -r: the suggested function order (arcs of from/to specs take part, as
# in gprof).
for prog in gpm gpc gpmo gpco; do
	for opts in "-r" "-r -c" "-r -k main/" "-r -k /burn -k ping/" "-r -qping/burn" "-r -Qca/cb"; do
		# shellcheck disable=SC2086
		same_as_gprof "$prog -b $opts" -b $opts $prog $prog.gmon
	done
done
[ -f gpms.gmon ] && same_as_gprof "gpms (static) -b -r" -b -r gpms gpms.gmon

# Several gmon files are summed.
for opts in "" "-p" "-q" "-i" "-C" "-A" "-l -p" "-z"; do
	# shellcheck disable=SC2086
	same_as_gprof "two gmon files -b $opts" -b $opts gpm gpm.gmon gpm2.gmon
done

# Other encodings of the same run, and degenerate files, built here from
# gpm.gmon: 4.4BSD and old BSD, the histogram split into two records, the
# header alone, the histogram alone, the arcs alone (gprof prints -nan).
python3 - gpm.gmon <<'PYEOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
hdr, pos, hists, arcs = d[:20], 20, [], []
while pos < len(d):
    tag = d[pos]; pos += 1
    if tag == 0:
        lo, hi, n, rate = struct.unpack_from('<QQII', d, pos); pos += 24
        dim = d[pos:pos + 16]; pos += 16
        bins = list(struct.unpack_from('<%dH' % n, d, pos)); pos += 2 * n
        hists.append((lo, hi, n, rate, dim, bins))
    else:
        arcs.append(struct.unpack_from('<QQI', d, pos)); pos += 20
def gnu(hs, ars):
    out = bytearray(hdr)
    for lo, hi, n, rate, dim, bins in hs:
        out += bytes([0]) + struct.pack('<QQII', lo, hi, n, rate) + dim + struct.pack('<%dH' % n, *bins)
    for a in ars:
        out += bytes([1]) + struct.pack('<QQI', *a)
    return bytes(out)
open('f_header.out', 'wb').write(hdr)
open('f_hist.out', 'wb').write(gnu(hists, []))
open('f_arcs.out', 'wb').write(gnu([], arcs))
lo, hi, n, rate, dim, bins = hists[0]
k = n // 2
while ((hi - lo) // 2 * k) % n:
    k += 1
mid = lo + (hi - lo) * k // n
open('f_split.out', 'wb').write(gnu([(lo, mid, k, rate, dim, bins[:k]), (mid, hi, n - k, rate, dim, bins[k:])], arcs))
b44 = struct.pack('<QQIIII', lo, hi, 40 + 2 * n, 0x51879, rate, 0) + bytes(8) + struct.pack('<%dH' % n, *bins)
old = struct.pack('<QQI', lo, hi, 20 + 2 * n) + struct.pack('<%dH' % n, *bins)
for f, s, c in arcs:
    b44 += struct.pack('<QQQ', f, s, c)
    old += struct.pack('<QQQ', f, s, c)
open('f_bsd44.out', 'wb').write(b44)
open('f_oldbsd.out', 'wb').write(old)
PYEOF
for f in header hist arcs split bsd44 oldbsd; do
	for opts in "" "-p" "-q" "-i" "-P" "-Q" "-z" "-C"; do
		# shellcheck disable=SC2086
		same_as_gprof "f_$f.out -b $opts" -b $opts gpm f_$f.out
	done
done
# Basic-block records (tag 2), which no compiler writes today, appended by
# hand: gprof uses them with -l for -C, -A, -x, -m and gmon.sum.
gprof -b -l -C -z gpm gpm.gmon > lines.txt
python3 - <<'PYEOF'
import re, struct
out = open('lines.txt').read()
addrs = [int(m.group(1), 16) for m in re.finditer(r'\((?:burn|second_leaf|mix|ping):0x([0-9a-f]+)\)', out)]
recs = []
for i, a in enumerate(addrs):
    recs.append((a, 100 + i * 37))
    if i % 3 == 0:
        recs.append((a + 2, 5 + i))
    if i % 4 == 0:
        recs.append((a, 1))
recs.append((addrs[0] + 1, 0))
def rec(rs):
    return bytes([2]) + struct.pack('<I', len(rs)) + b''.join(struct.pack('<QQ', a, c) for a, c in rs)
half = len(recs) // 2
open('f_bb.out', 'wb').write(open('gpm.gmon', 'rb').read() + rec(recs[:half]) + rec(recs[half:]))
PYEOF
for opts in "-l -C" "-l -C -z" "-l -A" "-l -A -x" "-l -A -m 120" "-l -A -x -z" "-l -A -t 3" "-l -p" "-C" "-A" "-i"; do
	# shellcheck disable=SC2086
	same_as_gprof "f_bb.out -b $opts" -b $opts gpm f_bb.out
done
mkdir -p bb_g bb_p
(cd bb_g && gprof -s ../gpm ../f_bb.out ../gpm.gmon)
(cd bb_p && "$PLUMB" gprof -s ../gpm ../f_bb.out ../gpm.gmon)
if [ -s bb_p/gmon.sum ] && cmp -s bb_g/gmon.sum bb_p/gmon.sum -i 20; then
	ok "-s with block records writes gprof's gmon.sum"
else
	fail "-s with block records writes gprof's gmon.sum" "$(cmp bb_g/gmon.sum bb_p/gmon.sum -i 20 2>&1)"
fi
same_as_gprof "-O b reads old BSD" -b -O b gpm f_oldbsd.out
same_as_gprof "-O 4 reads 4.4BSD" -b -O 4 gpm f_bsd44.out

# Without -b: plumb's own notes, none of gprof's text.
run "$PLUMB" gprof gpm gpm.gmon
same "plain output exits 0" "$rc" 0
expect_out "plain output has plumb's flat-profile notes" "Reading the flat profile (plumb's notes"
expect_out "plain output has plumb's call-graph notes" "Reading the call graph (plumb's notes"
case "$out" in
*"This table describes"*|*"Copyright"*|*"Free Software Foundation"*) fail "plain output carries none of gprof's blurbs" ;;
*) ok "plain output carries none of gprof's blurbs" ;;
esac
"$PLUMB" gprof -b gpm gpm.gmon > brief.out
gprof -b gpm gpm.gmon > gbrief.out
run "$PLUMB" gprof -p gpm gpm.gmon
py "plain -p: gprof's -b rows, then the notes" '
import sys
out = sys.stdin.read()
brief = open("gbrief.out").read().split("\f")[0]
assert out.startswith(brief), out[:300]
'

# -s: gmon.sum has gprof's content; GNU gprof reads ours as its own. gprof
# leaves stack bytes in the header's 12 spare bytes (bytes 9-20), plumb
# writes zeros there, so those bytes are not compared.
mkdir -p sum_g sum_p
(cd sum_g && gprof -s ../gpm ../gpm.gmon ../gpm2.gmon)
(cd sum_p && "$PLUMB" gprof -s ../gpm ../gpm.gmon ../gpm2.gmon > out 2> err)
if [ -s sum_p/gmon.sum ] && cmp -s sum_g/gmon.sum sum_p/gmon.sum -i 20; then
	ok "-s writes gprof's gmon.sum (past the header's spare bytes)"
else
	fail "-s writes gprof's gmon.sum" "$(cmp sum_g/gmon.sum sum_p/gmon.sum -i 20 2>&1)" "$(cat sum_p/err)"
fi
if [ "$(head -c 8 sum_g/gmon.sum | od -An -tx1)" = "$(head -c 8 sum_p/gmon.sum | od -An -tx1)" ]; then
	ok "-s header: cookie and version"
else
	fail "-s header: cookie and version"
fi
for opts in "" "-l" "-A"; do
	# shellcheck disable=SC2086
	same_as_gprof "gprof reads plumb's gmon.sum $opts" -b $opts gpm sum_p/gmon.sum
done
gprof -b gpm sum_p/gmon.sum > a.out.txt
gprof -b gpm sum_g/gmon.sum > b.out.txt
if cmp -s a.out.txt b.out.txt; then ok "gprof: plumb's sum reads as gprof's sum"; else fail "gprof: plumb's sum reads as gprof's sum" "$(diff a.out.txt b.out.txt | head)"; fi
same_as_gprof "-s -p prints the line-level flat profile" -b -s -p gpm gpm.gmon

# -y: annotated copies in the current directory, the same as gprof's.
mkdir -p y_g y_p
(cd y_g && gprof -b -A -y ../gpm ../gpm.gmon > stdout)
(cd y_p && "$PLUMB" gprof -b -A -y ../gpm ../gpm.gmon > stdout)
for f in gp_main.c-ann gp_second.c-ann; do
	if [ -s "y_p/$f" ] && cmp -s "y_g/$f" "y_p/$f"; then ok "-y writes $f as gprof"; else fail "-y writes $f as gprof" "$(diff "y_g/$f" "y_p/$f" 2>&1 | head)"; fi
done
if cmp -s y_g/stdout y_p/stdout; then ok "-y: stdout as gprof's"; else fail "-y: stdout as gprof's"; fi

# -y never writes outside the current directory, whatever the recorded
# source path: a program compiled as ../../src2/x.c.
mkdir -p src2 deep/er/run
cp "$gp_src"/gp_cycles.c src2/
(cd deep/er && gcc -pg -g -O0 -o ../../gpy ../../src2/gp_cycles.c) 2> /dev/null
if [ -x gpy ]; then
	(cd deep/er && ../../gpy > /dev/null && mv gmon.out ../../gpy.gmon)
	(cd deep/er/run && "$PLUMB" gprof -b -A -y ../../../gpy ../../../gpy.gmon > /dev/null 2>&1)
	stray=$(find . -name '*-ann' ! -path './y_g/*' ! -path './y_p/*' ! -path './deep/er/run/*')
	if [ -s deep/er/run/gp_cycles.c-ann ] && [ -z "$stray" ]; then
		ok "-y with a ../../ source path writes only into the current directory"
	else
		fail "-y with a ../../ source path writes only into the current directory" "stray: $stray" \
			"$(ls deep/er/run)"
	fi
else
	skip "-y path" "could not compile from a nested directory"
fi

# -I: a source moved away is found through the search path, as gprof does.
mkdir -p moved
mv src/gp_second.c moved/
same_as_gprof "-A without the source (could not locate)" -b -A gpm gpm.gmon
same_as_gprof "-A -I finds a moved source" -b -A -I moved gpm gpm.gmon
mv moved/gp_second.c src/

# Errors: usage is 2, bad input 1.
expect_status "an unknown option is a usage error" 2 "$PLUMB" gprof --no-such-option gpm gpm.gmon
expect_err "a missing gmon.out" 1 "nosuch.gmon" "$PLUMB" gprof -b gpm nosuch.gmon
expect_err "a missing executable" 1 "nosuch-exe" "$PLUMB" gprof -b nosuch-exe gpm.gmon
expect_err "a file that is not gmon" 1 "gp_main.c" "$PLUMB" gprof -b gpm src/gp_main.c
head -c 1000 gpm.gmon > trunc.gmon
expect_err "a truncated gmon file: the byte offset" 1 "byte" "$PLUMB" gprof -b gpm trunc.gmon
expect_err "-p on a file without a histogram" 1 "missing histogram" "$PLUMB" gprof -b -p gpm f_arcs.out
expect_err "-q on a file without arcs" 1 "missing call-graph data" "$PLUMB" gprof -b -q gpm f_hist.out
expect_status "-O p is refused as by gprof" 1 "$PLUMB" gprof -b -O p gpm gpm.gmon
expect_status "--width needs a number" 2 "$PLUMB" gprof -b -w wide gpm gpm.gmon
(mkdir -p none && cd none && "$PLUMB" gprof -b > out 2> err; echo $? > rc)
if [ "$(cat none/rc)" = 1 ] && grep -q "a.out" none/err; then ok "defaults a.out and gmon.out"; else fail "defaults a.out and gmon.out" "$(cat none/err)"; fi
mkdir -p dflt && cp gpm dflt/a.out && cp gpm.gmon dflt/gmon.out
(cd dflt && "$PLUMB" gprof -b > p.out && gprof -b > g.out)
if cmp -s dflt/p.out dflt/g.out; then ok "a.out and gmon.out read by default"; else fail "a.out and gmon.out read by default"; fi
if [ -w /dev/full ]; then
	expect_err "a full disk on stdout is an error" 1 "cannot write" sh -c "'$PLUMB' gprof -b gpm gpm.gmon > /dev/full"
fi
expect_status "--help" 0 "$PLUMB" gprof --help
expect_out "--help names the options" "--flat-profile"
