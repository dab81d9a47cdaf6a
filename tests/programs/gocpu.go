// A CPU profile written by Go's runtime/pprof, for tests/e2e/t_pprof.sh:
// two functions burn CPU (hot about three times as long as cold), called
// from main through work. Usage: gocpu OUT.pprof [milliseconds]: about
// that much CPU time on an idle machine. The work is a fixed number of
// rounds, not a wall-clock time, so that a loaded machine, which gives the
// program less CPU, cannot shrink the profile to a handful of samples.
package main

import (
	"os"
	"runtime/pprof"
	"strconv"
)

var sink uint64

//go:noinline
func hot(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

//go:noinline
func cold(n int) {
	x := sink
	for i := 0; i < n; i++ {
		x ^= x<<13 ^ x>>7
	}
	sink = x
}

//go:noinline
func work(rounds int) {
	for r := 0; r < rounds; r++ {
		hot(3000000)
		cold(1000000)
	}
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	ms := 1500
	if len(os.Args) > 2 {
		ms, _ = strconv.Atoi(os.Args[2])
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	work(ms / 4) /* a round: about 4 ms of CPU */
	pprof.StopCPUProfile()
	f.Close()
}
