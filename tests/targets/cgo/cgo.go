// cgo.go is built into a target by build.sh's cgo modes: it makes the
// program a cgo program that really calls C (so libc and the dynamic
// loader are mapped and show up in the heap profile's mappings) without
// changing what the target allocates on the Go heap.
package main

/*
#include <stdlib.h>
#include <string.h>

static size_t c_strlen_copy(const char *s) {
	char *d = strdup(s);
	size_t n = d ? strlen(d) : 0;
	free(d);
	return n;
}
*/
import "C"

import "unsafe"

func init() {
	s := C.CString("cgo target")
	defer C.free(unsafe.Pointer(s))
	if C.c_strlen_copy(s) != 10 {
		panic("cgo: C strlen disagrees")
	}
}
