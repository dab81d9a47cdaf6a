# The baseline for bench/run.sh: the flat self-cost table of a folded-stacks
# file (samples summed per leaf frame), as one would write it without a
# profiler. Sort the output with `sort -rn`.
{
	count = $NF
	sub(/[ \t]+[0-9]+[ \t\r]*$/, "")
	n = split($0, frames, ";")
	self[frames[n]] += count
}
END {
	for (f in self)
		print self[f], f
}
