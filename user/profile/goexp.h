/* goexp.h - Go's math.Exp on amd64, bit for bit (both the FMA and the
 * plain SSE2 path of math/exp_amd64.s), and runtime/pprof's
 * scaleHeapSample built on it. The truncated integers in a heap profile
 * depend on the last bit of exp, so the host libm will not do. */
#ifndef GH_GOEXP_H
#define GH_GOEXP_H

#include <stdbool.h>
#include <stdint.h>

/* math.Exp(x) as the target computes it; use_fma = the target's math.useFMA. */
double goexp(double x, bool use_fma);

/* Go's int64(f) on amd64 (CVTTSD2SQ): truncation, and INT64_MIN for NaN
 * and out-of-range values. */
int64_t go_f64_to_i64(double f);

/* runtime/pprof scaleHeapSample(count, size, rate) for go1.18-1.26:
 * count==0 || size==0 -> 0,0; rate<=1 -> unscaled; else both scaled by
 * 1/(1-exp(-avg/rate)) and truncated. */
void scale_heap_sample(int64_t count, int64_t size, int64_t rate, bool use_fma,
		       int64_t *out_count, int64_t *out_size);

/* go1.27's form, which passes the object size (bytes = count * objsize). */
void scale_heap_sample_by_size(int64_t count, int64_t objsize, int64_t rate,
			       bool use_fma, int64_t *out_count,
			       int64_t *out_size);

#endif
