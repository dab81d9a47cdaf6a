// A heap profile written by Go's runtime/pprof, for tests/e2e/t_pprof.sh:
// four sample types (alloc_objects, alloc_space, inuse_objects,
// inuse_space) of which go tool pprof shows the last. Usage: goheap OUT
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

var keep [][]byte

//go:noinline
func big() {
	for i := 0; i < 200; i++ {
		keep = append(keep, make([]byte, 1<<16))
	}
}

//go:noinline
func small() {
	for i := 0; i < 2000; i++ {
		keep = append(keep, make([]byte, 1<<10))
	}
}

func main() {
	runtime.MemProfileRate = 1
	big()
	small()
	runtime.GC()
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.WriteHeapProfile(f); err != nil {
		panic(err)
	}
	f.Close()
}
