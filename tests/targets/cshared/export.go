// export.go is built into a target by build.sh's c-shared mode: the C host
// (host.c) loads the library and calls HeapgenRun from a thread of its
// own. HeapgenRun gives this library's Go runtime its own profile and
// ready paths, then runs the target's main, which never returns.
package main

import "C"

import "os"

//export HeapgenRun
func HeapgenRun(profile, ready *C.char) {
	if err := os.Setenv("HEAPGEN_PROFILE", C.GoString(profile)); err != nil {
		panic(err)
	}
	if err := os.Setenv("HEAPGEN_READY", C.GoString(ready)); err != nil {
		panic(err)
	}
	main()
}
