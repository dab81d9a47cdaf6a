-- Workload for bench/inputs_real.sh: the interpreter's hot paths (calls,
-- tables, strings, closures) at a fixed size; prints a checksum.
local n = tonumber(arg and arg[1]) or 1
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
local check = 0
for round = 1, n do
	check = check + fib(22)
	local t = {}
	local seed = 12345 + round
	for i = 1, 20000 do
		seed = (seed * 1103515245 + 12345) % 2147483648
		t[i] = seed
	end
	table.sort(t)
	check = check + t[1] % 1000 + t[#t] % 1000
	local words = {}
	for i = 1, 5000 do words[#words + 1] = string.format("w%05d", (i * 7919) % 5000) end
	local s = table.concat(words, " ")
	local count = 0
	for w in s:gmatch("w0*(%d+)") do count = count + #w end
	check = check + count
	local acc = 0
	local adders = {}
	for i = 1, 2000 do adders[i] = function(x) return x + i end end
	for i = 1, 2000 do acc = adders[i](acc) % 1000003 end
	check = check + acc
end
print(check)
