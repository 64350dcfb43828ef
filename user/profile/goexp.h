/* goexp.h - Go's math.Exp bit for bit as the target computes it (both
 * paths of math/exp_amd64.s, the FMA and the plain SSE2 one, and
 * math/exp_arm64.s), Go's int64(float64) on each architecture, and
 * runtime/pprof's scaleHeapSample built on them. The truncated integers
 * in a heap profile depend on the last bit of exp, so the host libm will
 * not do. */
#ifndef GH_GOEXP_H
#define GH_GOEXP_H

#include <stdbool.h>
#include <stdint.h>

/* Which floating-point code the target runs. */
enum gomath {
	GOMATH_AMD64_SSE2, /* amd64, math.useFMA false */
	GOMATH_AMD64_FMA,  /* amd64, math.useFMA true (AVX and FMA) */
	GOMATH_ARM64,	   /* arm64 (math/exp_arm64.s has one path) */
};

/* math.Exp(x) as the target computes it. */
double goexp(double x, enum gomath m);

/* Go's int64(f): truncation; out of range and NaN give INT64_MIN on amd64
 * (CVTTSD2SQ), saturate (NaN: 0) on arm64 (FCVTZSD). */
int64_t go_f64_to_i64(double f, enum gomath m);

/* runtime/pprof scaleHeapSample(count, size, rate) for go1.18-1.26:
 * count==0 || size==0 -> 0,0; rate<=1 -> unscaled; else both scaled by
 * 1/(1-exp(-avg/rate)) and truncated. */
void scale_heap_sample(int64_t count, int64_t size, int64_t rate, enum gomath m,
		       int64_t *out_count, int64_t *out_size);

/* go1.27's form, which passes the object size (bytes = count * objsize). */
void scale_heap_sample_by_size(int64_t count, int64_t objsize, int64_t rate,
			       enum gomath m, int64_t *out_count,
			       int64_t *out_size);

#endif
