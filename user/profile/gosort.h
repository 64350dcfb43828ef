/* gosort.h - Go's unstable sorts, step for step, so that records equal
 * under their key end in the order the runtime's own sort leaves them
 * for the same input: sort.Slice's quicksort (go1.18, sort/zfuncversion.go)
 * and its pattern-defeating quicksort (go1.19+, sort/zsortfunc.go), which
 * slices.SortFunc also runs (slices/zsortanyfunc.go: the same steps). */
#ifndef GH_PROFILE_GOSORT_H
#define GH_PROFILE_GOSORT_H

#include <stdbool.h>
#include <stddef.h>

/* sort's lessSwap over n elements, and the release's pdqsort. */
struct gosort {
	bool (*less)(void *ctx, long i, long j);
	void (*swap)(void *ctx, long i, long j);
	void *ctx;
	/* breakPatterns' xorshift shifts by 13, 7, 17 (sort and slices from
	 * go1.24), else by 13, 17, 5 */
	bool xorshift_7_17;
};

/* sort.Slice of go1.19+ (pdqsort_func), and slices.SortFunc. */
void go_pdqsort(const struct gosort *d, long n);
/* sort.Slice of go1.18 (quickSort_func). */
void go_quicksort(const struct gosort *d, long n);

#endif
