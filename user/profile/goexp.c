/* goexp.c - Go's math.Exp on amd64 and arm64, instruction for
 * instruction, Go's int64(float64) on each, and runtime/pprof's
 * scaleHeapSample on top of them.
 *
 * Every supported release (go1.18 ... go1.27) computes math.Exp with the
 * same assembly on each architecture (archExp; the Go fallback in exp.go
 * is never used there). math/exp_amd64.s has two arithmetic paths chosen
 * by math.useFMA (cpu.X86.HasAVX && cpu.X86.HasFMA, fixed at package
 * init): one with separately rounded MULSD/ADDSD/SUBSD, one with
 * VFMADD/VFNMADD. math/exp_arm64.s is another algorithm altogether
 * (exp.go's, with FMADDD/FMSUBD/FNMSUBD). They differ in the last bit for
 * many arguments, and a heap profile truncates count *
 * 1/(1-exp(-avg/rate)) to an integer, so only a faithful copy of the
 * target's operations gives the same profile. The Makefile builds this
 * file with -ffp-contract=off: only the fma() calls fuse. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "profile/goexp.h"

/* The constants exactly as exp_amd64.s spells them, so the compiler rounds
 * them to the same doubles the Go assembler does. */
#define LOG2E	 1.4426950408889634073599246810018920
#define LN2U	 0.69314718055966295651160180568695068359375
#define LN2L	 0.28235290563031577122588448175013436025525412068e-12
#define OVERFLOW 7.09782712893384e+02

/* exp_arm64.s's constants, spelled as it spells them. */
#define A64_LN2HI	  6.93147180369123816490e-01
#define A64_LN2LO	  1.90821492927058770002e-10
#define A64_LOG2E	  1.44269504088896338700e+00
#define A64_OVERFLOW	  7.09782712893383973096e+02
#define A64_UNDERFLOW	  -7.45133219101941108420e+02
#define A64_NEARZERO_BITS UINT64_C(0x3e30000000000000) /* 2**-28 */
#define A64_FRACMASK	  UINT64_C(0x000fffffffffffff)
#define A64_C1_BITS	  UINT64_C(0x3cb0000000000000) /* 2**-52 */
#define A64_P1		  1.66666666666666657415e-01
#define A64_P2		  -2.77777777770155933842e-03
#define A64_P3		  6.61375632143793436117e-05
#define A64_P4		  -1.65339022054652515390e-06
#define A64_P5		  4.13813679705723846039e-08

/* exprodata<>: 1/2, 1, 2 and the Taylor coefficients 1/3! ... 1/8!. */
#define C_HALF 0.5
#define C_ONE  1.0
#define C_TWO  2.0
#define C_3    1.6666666666666666667e-1
#define C_4    4.1666666666666666667e-2
#define C_5    8.3333333333333333333e-3
#define C_6    1.3888888888888888889e-3
#define C_7    1.9841269841269841270e-4
#define C_8    2.4801587301587301587e-5

#define POS_INF_BITS UINT64_C(0x7FF0000000000000)
#define NEG_INF_BITS UINT64_C(0xFFF0000000000000)
#define SIGN_BIT     UINT64_C(0x8000000000000000)
#define INT32_INDEF  INT32_MIN /* CVTSD2SL's "integer indefinite" */

static uint64_t f64_bits(double f)
{
	uint64_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static double f64_from_bits(uint64_t u)
{
	double f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Force v to be a rounded double here. The empty asm hides v from the
 * optimizer, so with -ffp-contract=fast (gcc's default outside ISO mode)
 * and an FMA-capable -march the compiler still cannot fuse a MULSD into
 * the following ADDSD/SUBSD. Without it gcc -O2 -march=haswell
 * -std=gnu11 turns this path into the FMA one (test_goexp then fails). */
static inline double rounded(double v)
{
#if defined(__x86_64__)
	__asm__("" : "+x"(v));
#elif defined(__aarch64__)
	__asm__("" : "+w"(v));
#else
	__asm__("" : "+m"(v));
#endif
	return v;
}

/* CVTSD2SL under Go's MXCSR (round to nearest, ties to even; Go never
 * changes it): NaN and values that round outside int32 give 0x80000000.
 * Done by hand so our own rounding mode cannot matter. */
static int32_t cvtsd2sl(double v)
{
	double t, frac;
	int64_t n;

	if (!(v >= -2147483648.5 && v < 2147483647.5))
		return INT32_INDEF;
	n = (int64_t)v; /* in range: truncation is defined */
	t = (double)n;
	frac = v - t; /* exact: |v| < 2^31 */
	if (frac > 0.5 || (frac == 0.5 && (n & 1)))
		n++;
	else if (frac < -0.5 || (frac == -0.5 && (n & 1)))
		n--;
	return (int32_t)n;
}

/* The SSE2 path: x - k*ln2 in two parts, then the Taylor series of
 * exp(r/16) - 1 and four squarings (y = y*(y+2)), every operation rounded
 * on its own. */
static double reduce_sse2(double x, double k)
{
	double r, p;

	r = x - rounded(k * LN2U);
	r = r - rounded(k * LN2L);
	r = rounded(r * 0.0625);
	p = rounded(C_8 * r) + C_7;
	p = rounded(p * r) + C_6;
	p = rounded(p * r) + C_5;
	p = rounded(p * r) + C_4;
	p = rounded(p * r) + C_3;
	p = rounded(p * r) + C_HALF;
	p = rounded(p * r) + C_ONE;
	r = rounded(r * p);
	r = rounded(r * (C_TWO + r));
	r = rounded(r * (C_TWO + r));
	r = rounded(r * (C_TWO + r));
	r = rounded(r * (C_TWO + r));
	return r + C_ONE;
}

/* The AVX/FMA path: the same steps, fused where the assembly uses
 * VFNMADD231SD / VFMADD213SD, including the final y*(y+2) + 1. */
static double reduce_fma(double x, double k)
{
	double r, p;

	r = fma(-k, LN2U, x);
	r = fma(-k, LN2L, r);
	r = rounded(r * 0.0625);
	p = fma(r, C_8, C_7);
	p = fma(r, p, C_6);
	p = fma(r, p, C_5);
	p = fma(r, p, C_4);
	p = fma(r, p, C_3);
	p = fma(r, p, C_HALF);
	p = fma(r, p, C_ONE);
	r = rounded(r * p);
	r = rounded(r * (r + C_TWO));
	r = rounded(r * (r + C_TWO));
	r = rounded(r * (r + C_TWO));
	return fma(r, r + C_TWO, C_ONE);
}

/* The ldexp: label: fr * 2**k with the assembly's own thresholds. A biased
 * exponent >= 0x7FF is +Inf even when fr * 2**k would still be finite
 * (x in (~709.44, 709.78]: Go's math.Exp(709.5) is +Inf); a denormal
 * result is built as the assembly does, by 2**(k+1022) (exact) and then
 * 2**-1022 (the one rounding into the denormal range). */
static double scale_by_exponent(double fr, int32_t k)
{
	int64_t e = (int64_t)k + 0x3FF;

	if (e <= 0) {
		if (e < -52)
			return 0.0;
		fr = fr * f64_from_bits((uint64_t)(e + 0x3FE) << 52);
		e = 1;
	} else if (e >= 0x7FF) {
		return f64_from_bits(POS_INF_BITS);
	}
	return fr * f64_from_bits((uint64_t)e << 52);
}

/* math/exp_amd64.s. */
static double exp_amd64(double x, bool use_fma)
{
	uint64_t bits = f64_bits(x);
	int32_t k;
	double kf, fr;

	if ((bits & ~SIGN_BIT) >= POS_INF_BITS) /* NaN, +Inf: x; -Inf: 0 */
		return bits == NEG_INF_BITS ? 0.0 : x;
	if (x > OVERFLOW)
		return f64_from_bits(POS_INF_BITS);
	/* No underflow test: a very negative x makes k tiny (or indefinite)
	 * and the exponent check below returns 0. */
	k = cvtsd2sl(x * LOG2E);
	kf = (double)k;
	fr = use_fma ? reduce_fma(x, kf) : reduce_sse2(x, kf);
	return scale_by_exponent(fr, k);
}

/* exp_arm64.s from the argument reduction to y, for |x| in [2**-28,
 * ~745]. Go's FMADDD Fm, Fa, Fn, Fd is Fd = Fa + Fn*Fm, FMSUBD is Fa -
 * Fn*Fm and FNMSUBD is Fn*Fm - Fa, each rounded once: fma(). */
static double reduce_arm64(double x, int64_t *k)
{
	double kf, hi, lo, r, t, p, c, q;

	/* FNMSUBD / FMADDD, FCSELD LT: k = Log2e*x -+ 0.5 by x's sign;
	 * FCVTZSD truncates it (|x| <= 746: in range). */
	kf = x < 0 ? fma(A64_LOG2E, x, -0.5) : fma(A64_LOG2E, x, 0.5);
	*k = (int64_t)kf;
	kf = (double)*k;		  /* SCVTFD */
	hi = fma(-kf, A64_LN2HI, x);	  /* FMSUBD */
	lo = rounded(kf * A64_LN2LO);	  /* FMULD */
	r = hi - lo;			  /* FSUBD */
	t = rounded(r * r);		  /* FMULD */
	p = fma(t, A64_P5, A64_P4);	  /* FMADDD */
	p = fma(t, p, A64_P3);		  /* FMADDD */
	p = fma(t, p, A64_P2);		  /* FMADDD */
	p = fma(t, p, A64_P1);		  /* FMADDD */
	c = fma(-t, p, r);		  /* FMSUBD: r - t*p */
	q = rounded(r * c) / (C_TWO - c); /* FMULD, FSUBD, FDIVD */
	q = lo - q;			  /* FSUBD */
	q = q - hi;			  /* FSUBD */
	return C_ONE - q;		  /* FSUBD: y */
}

/* math/exp_arm64.s: the checks in its order, then its inlined Ldexp(y,
 * k), whose 64-bit integer arithmetic wraps (ADD, ORR R5<<52) and which
 * scales a denormal result by 2**-52 after building it 52 binades up. */
static double exp_arm64(double x)
{
	uint64_t bits, e;
	double y, m = C_ONE;
	int64_t k;

	if (x != x) /* FCMPD F0, F0; BNE */
		return x;
	if (x > A64_OVERFLOW)
		return f64_from_bits(POS_INF_BITS);
	if (x < A64_UNDERFLOW)
		return 0.0;
	if (fabs(x) < f64_from_bits(A64_NEARZERO_BITS))
		return x + C_ONE;
	y = reduce_arm64(x, &k);
	bits = f64_bits(y);
	e = (bits >> 52) + (uint64_t)k; /* LSR $52; ADD R1, R5 */
	if ((int64_t)e < 1) {		/* CMP $1, R5; BGE normal */
		e += 52;
		m = f64_from_bits(A64_C1_BITS);
	}
	return f64_from_bits((bits & A64_FRACMASK) | e << 52) * m;
}

double goexp(double x, enum gomath m)
{
	if (m == GOMATH_ARM64)
		return exp_arm64(x);
	return exp_amd64(x, m == GOMATH_AMD64_FMA);
}

int64_t go_f64_to_i64(double f, enum gomath m)
{
	/* arm64's FCVTZSD saturates, and gives 0 for NaN. */
	if (m == GOMATH_ARM64) {
		if (f != f)
			return 0;
		if (f >= 9223372036854775808.0)
			return INT64_MAX;
		if (f < -9223372036854775808.0)
			return INT64_MIN;
		return (int64_t)f;
	}
	/* amd64's CVTTSD2SQ: the truncation must fit in [-2^63, 2^63), else
	 * the "integer indefinite" INT64_MIN. */
	if (!(f >= -9223372036854775808.0 && f < 9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)f;
}

/* 1/(1 - exp(-avg/rate)), as both forms of scaleHeapSample compute it.
 * When avg/rate is below about 2^-53, exp gives 1 and the quotient is
 * +Inf (IEEE, as in Go); the int64 conversion then yields INT64_MIN on
 * amd64, INT64_MAX on arm64. */
static double heap_scale(double avg, int64_t rate, enum gomath m)
{
	return 1 / (1 - goexp(-avg / (double)rate, m));
}

void scale_heap_sample(int64_t count, int64_t size, int64_t rate, enum gomath m,
		       int64_t *out_count, int64_t *out_size)
{
	double scale;

	if (count == 0 || size == 0) {
		*out_count = 0;
		*out_size = 0;
		return;
	}
	if (rate <= 1) {
		*out_count = count;
		*out_size = size;
		return;
	}
	scale = heap_scale((double)size / (double)count, rate, m);
	*out_count = go_f64_to_i64((double)count * scale, m);
	*out_size = go_f64_to_i64((double)size * scale, m);
}

/* Go's int64 multiply wraps; C's would be undefined, so go through
 * uint64 (conversion back is modular with gcc and clang). */
static int64_t go_mul_i64(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a * (uint64_t)b);
}

void scale_heap_sample_by_size(int64_t count, int64_t objsize, int64_t rate,
			       enum gomath m, int64_t *out_count,
			       int64_t *out_size)
{
	int64_t size = go_mul_i64(count, objsize);
	double scale;

	if (count == 0 || objsize == 0) {
		*out_count = 0;
		*out_size = 0;
		return;
	}
	if (rate <= 1) {
		*out_count = count;
		*out_size = size;
		return;
	}
	scale = heap_scale((double)objsize, rate, m);
	*out_count = go_f64_to_i64((double)count * scale, m);
	*out_size = go_f64_to_i64((double)size * scale, m);
}
