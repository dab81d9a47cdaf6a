# plumb annotate --disasm on a recording (plumb record): the CCT's frames
# carry the objects' own addresses and modules, so the hot loop is
# disassembled from the executable, and its instructions' costs add up to
# the function's self cost in the table.
if ! command -v gcc > /dev/null 2>&1 || ! command -v objdump > /dev/null 2>&1; then
	skip "annotate --disasm on a recording" "gcc or objdump not installed"
	return 0 2> /dev/null || exit 0
fi
cat > hot.c <<'EOF'
#include <stdlib.h>
volatile unsigned long sink;
__attribute__((noinline)) void hot(long n)
{
	unsigned long x = 1;
	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;
}
int main(int argc, char **argv)
{
	hot(argc > 1 ? atol(argv[1]) : 100000000L);
	return 0;
}
EOF
gcc -O1 -g -o hot hot.c
if ! "$PLUMB" record -q -o hot.plumb ./hot 200000000 2> rec.err; then
	skip "annotate --disasm on a recording" "plumb record cannot sample here: $(head -1 rec.err)"
	return 0 2> /dev/null || exit 0
fi
objdump -d --no-show-raw-insn hot > objdump.txt
run "$PLUMB" annotate --disasm --auto=no hot.plumb
printf '%s\n' "$out" > ann.txt
python3 - ann.txt objdump.txt > check.txt 2>&1 <<'EOF'
import re, sys
text, objdump = open(sys.argv[1]).read(), open(sys.argv[2]).read()
table = text.split("file:function", 1)[1].split("-- Disassembly", 1)[0]
m = re.search(r"^ *([\d,]+) \([ \d.]+%\)  \S*hot\.c:hot ", table, re.M)
assert m, "hot not in the table:\n" + table
self_cost = int(m.group(1).replace(",", ""))
sec = text.split("-- Disassembly: ", 1)[1]
assert sec.split("\n", 1)[0].split(" [")[0].endswith("hot.c:hot"), sec[:300]
sec = sec.split("-- Disassembly", 1)[0]
assert "no instruction addresses" not in sec, sec[:400]
# objdump's instructions of hot: the addresses the section must show
body = objdump.split("<hot>:\n", 1)[1].split("\n\n", 1)[0]
want = [int(a, 16) for a in re.findall(r"^\s+([0-9a-f]+):", body, re.M)]
rows = re.findall(r"^ *([\d,]+|\.)(?: \([ \d.]+%\))?\s+0x([0-9a-f]+):  (.*)$", sec, re.M)
got = [int(a, 16) for _, a, _ in rows]
assert got == want, "addresses %s, objdump %s" % ([hex(a) for a in got], [hex(a) for a in want])
total = sum(0 if c == "." else int(c.replace(",", "")) for c, _, _ in rows)
assert total == self_cost, "instructions sum to %d, hot's self cost %d" % (total, self_cost)
costed = [i for c, _, i in rows if c != "."]
assert self_cost > 0 and costed, "no costed instruction"
print("%d instructions, %d costed, %d samples" % (len(rows), len(costed), self_cost))
EOF
if [ $? -eq 0 ]; then
	ok "annotate --disasm on a recording: hot's instructions, costs sum to its self cost ($(cat check.txt))"
else
	fail "annotate --disasm on a recording" "$(cat check.txt)" "$(head -40 ann.txt)"
fi

# capstone is opened when first needed, not linked: every command but the
# disassembling ones is spared its 3.3 MB of relocated tables (the check
# above shows it still disassembles).
if command -v ldd > /dev/null 2>&1; then
	if ldd "$PLUMB" | grep -q libcapstone; then
		fail "plumb does not link libcapstone (dlopen'ed by src/symbols/capstone_lib.c)" "$(ldd "$PLUMB" | grep capstone)"
	else
		ok "plumb does not link libcapstone (dlopen'ed when disassembling)"
	fi
fi
