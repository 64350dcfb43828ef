/* gosort.c - see gosort.h. Each function is its Go namesake (indices are
 * Go's ints, signed); comments name only what the Go code does not say. */
#include "profile/gosort.h"

#define LESS(i, j) d->less(d->ctx, (i), (j))
#define SWAP(i, j) d->swap(d->ctx, (i), (j))

/* bits.Len */
static long bit_len(unsigned long x)
{
	long n = 0;

	for (; x; x >>= 1)
		n++;
	return n;
}

static void insertion_sort(const struct gosort *d, long a, long b)
{
	for (long i = a + 1; i < b; i++)
		for (long j = i; j > a && LESS(j, j - 1); j--)
			SWAP(j, j - 1);
}

static void sift_down(const struct gosort *d, long lo, long hi, long first)
{
	long root = lo, child;

	for (;;) {
		child = 2 * root + 1;
		if (child >= hi)
			return;
		if (child + 1 < hi && LESS(first + child, first + child + 1))
			child++;
		if (!LESS(first + root, first + child))
			return;
		SWAP(first + root, first + child);
		root = child;
	}
}

static void heap_sort(const struct gosort *d, long a, long b)
{
	long first = a, lo = 0, hi = b - a;

	for (long i = (hi - 1) / 2; i >= 0; i--)
		sift_down(d, i, hi, first);
	for (long i = hi - 1; i >= 0; i--) {
		SWAP(first, first + i);
		sift_down(d, lo, i, first);
	}
}

/* ---- pdqsort (go1.19+) ---- */

enum hint { UNKNOWN_HINT, INCREASING_HINT, DECREASING_HINT };

static long partition(const struct gosort *d, long a, long b, long pivot,
		      bool *already)
{
	long i = a + 1, j = b - 1;

	SWAP(a, pivot);
	while (i <= j && LESS(i, a))
		i++;
	while (i <= j && !LESS(j, a))
		j--;
	if (i > j) {
		SWAP(j, a);
		*already = true;
		return j;
	}
	SWAP(i, j);
	i++;
	j--;
	for (;;) {
		while (i <= j && LESS(i, a))
			i++;
		while (i <= j && !LESS(j, a))
			j--;
		if (i > j)
			break;
		SWAP(i, j);
		i++;
		j--;
	}
	SWAP(j, a);
	*already = false;
	return j;
}

static long partition_equal(const struct gosort *d, long a, long b, long pivot)
{
	long i = a + 1, j = b - 1;

	SWAP(a, pivot);
	for (;;) {
		while (i <= j && !LESS(a, i))
			i++;
		while (i <= j && LESS(a, j))
			j--;
		if (i > j)
			break;
		SWAP(i, j);
		i++;
		j--;
	}
	return i;
}

static bool partial_insertion_sort(const struct gosort *d, long a, long b)
{
	const long max_steps = 5, shortest_shifting = 50;
	long i = a + 1;

	for (long step = 0; step < max_steps; step++) {
		while (i < b && !LESS(i, i - 1))
			i++;
		if (i == b)
			return true;
		if (b - a < shortest_shifting)
			return false;
		SWAP(i, i - 1);
		if (i - a >= 2)
			for (long j = i - 1; j >= 1; j--) {
				if (!LESS(j, j - 1))
					break;
				SWAP(j, j - 1);
			}
		if (b - i >= 2)
			for (long j = i + 1; j < b; j++) {
				if (!LESS(j, j - 1))
					break;
				SWAP(j, j - 1);
			}
	}
	return false;
}

static void break_patterns(const struct gosort *d, long a, long b)
{
	long length = b - a;
	unsigned long long random = (unsigned long long)length;
	unsigned long modulus;

	if (length < 8)
		return;
	modulus = 1ul << bit_len((unsigned long)length); /* nextPowerOfTwo */
	for (long idx = a + (length / 4) * 2 - 1;
	     idx <= a + (length / 4) * 2 + 1; idx++) {
		long other;

		random ^= random << 13; /* xorshift.Next */
		random ^= random >> (d->xorshift_7_17 ? 7 : 17);
		random ^= random << (d->xorshift_7_17 ? 17 : 5);
		other = (long)((unsigned long)random & (modulus - 1));
		if (other >= length)
			other -= length;
		SWAP(idx, a + other);
	}
}

static void order2(const struct gosort *d, long *a, long *b, int *swaps)
{
	if (LESS(*b, *a)) {
		long t = *a;

		(*swaps)++;
		*a = *b;
		*b = t;
	}
}

static long median(const struct gosort *d, long a, long b, long c, int *swaps)
{
	order2(d, &a, &b, swaps);
	order2(d, &b, &c, swaps);
	order2(d, &a, &b, swaps);
	return b;
}

static long median_adjacent(const struct gosort *d, long a, int *swaps)
{
	return median(d, a - 1, a, a + 1, swaps);
}

static long choose_pivot(const struct gosort *d, long a, long b,
			 enum hint *hint)
{
	const long shortest_ninther = 50;
	const int max_swaps = 4 * 3;
	long l = b - a, i = a + l / 4 * 1, j = a + l / 4 * 2, k = a + l / 4 * 3;
	int swaps = 0;

	if (l >= 8) {
		if (l >= shortest_ninther) {
			i = median_adjacent(d, i, &swaps);
			j = median_adjacent(d, j, &swaps);
			k = median_adjacent(d, k, &swaps);
		}
		j = median(d, i, j, k, &swaps);
	}
	*hint = swaps == 0	     ? INCREASING_HINT
		: swaps == max_swaps ? DECREASING_HINT
				     : UNKNOWN_HINT;
	return j;
}

static void reverse_range(const struct gosort *d, long a, long b)
{
	for (long i = a, j = b - 1; i < j; i++, j--)
		SWAP(i, j);
}

static void pdqsort(const struct gosort *d, long a, long b, long limit)
{
	const long max_insertion = 12;
	bool was_balanced = true, was_partitioned = true;

	for (;;) {
		long length = b - a, pivot, mid, threshold;
		enum hint hint;

		if (length <= max_insertion) {
			insertion_sort(d, a, b);
			return;
		}
		if (limit == 0) {
			heap_sort(d, a, b);
			return;
		}
		if (!was_balanced) {
			break_patterns(d, a, b);
			limit--;
		}
		pivot = choose_pivot(d, a, b, &hint);
		if (hint == DECREASING_HINT) {
			reverse_range(d, a, b);
			pivot = (b - 1) - (pivot - a);
			hint = INCREASING_HINT;
		}
		if (was_balanced && was_partitioned &&
		    hint == INCREASING_HINT && partial_insertion_sort(d, a, b))
			return;
		if (a > 0 && !LESS(a - 1, pivot)) {
			a = partition_equal(d, a, b, pivot);
			continue;
		}
		mid = partition(d, a, b, pivot, &was_partitioned);
		threshold = length / 8;
		if (mid - a < b - mid) {
			was_balanced = mid - a >= threshold;
			pdqsort(d, a, mid, limit);
			a = mid + 1;
		} else {
			was_balanced = b - mid >= threshold;
			pdqsort(d, mid + 1, b, limit);
			b = mid;
		}
	}
}

void go_pdqsort(const struct gosort *d, long n)
{
	pdqsort(d, 0, n, bit_len((unsigned long)n));
}

/* ---- quicksort (go1.18) ---- */

static void median_of_three(const struct gosort *d, long m1, long m0, long m2)
{
	if (LESS(m1, m0))
		SWAP(m1, m0);
	if (LESS(m2, m1)) {
		SWAP(m2, m1);
		if (LESS(m1, m0))
			SWAP(m1, m0);
	}
}

static long do_pivot(const struct gosort *d, long lo, long hi, long *midhi)
{
	long m = (long)((unsigned long)(lo + hi) >> 1), pivot = lo;
	long a = lo + 1, b, c = hi - 1;
	bool protect;

	if (hi - lo > 40) {
		long s = (hi - lo) / 8;

		median_of_three(d, lo, lo + s, lo + 2 * s);
		median_of_three(d, m, m - s, m + s);
		median_of_three(d, hi - 1, hi - 1 - s, hi - 1 - 2 * s);
	}
	median_of_three(d, lo, m, hi - 1);
	for (; a < c && LESS(a, pivot); a++)
		;
	b = a;
	for (;;) {
		for (; b < c && !LESS(pivot, b); b++)
			;
		for (; b < c && LESS(pivot, c - 1); c--)
			;
		if (b >= c)
			break;
		SWAP(b, c - 1);
		b++;
		c--;
	}
	protect = hi - c < 5;
	if (!protect && hi - c < (hi - lo) / 4) {
		int dups = 0;

		if (!LESS(pivot, hi - 1)) {
			SWAP(c, hi - 1);
			c++;
			dups++;
		}
		if (!LESS(b - 1, pivot)) {
			b--;
			dups++;
		}
		if (!LESS(m, pivot)) {
			SWAP(m, b - 1);
			b--;
			dups++;
		}
		protect = dups > 1;
	}
	if (protect)
		for (;;) {
			for (; a < b && !LESS(b - 1, pivot); b--)
				;
			for (; a < b && LESS(a, pivot); a++)
				;
			if (a >= b)
				break;
			SWAP(a, b - 1);
			a++;
			b--;
		}
	SWAP(pivot, b - 1);
	*midhi = c;
	return b - 1;
}

static void quick_sort(const struct gosort *d, long a, long b, long max_depth)
{
	while (b - a > 12) {
		long mlo, mhi;

		if (max_depth == 0) {
			heap_sort(d, a, b);
			return;
		}
		max_depth--;
		mlo = do_pivot(d, a, b, &mhi);
		if (mlo - a < b - mhi) {
			quick_sort(d, a, mlo, max_depth);
			a = mhi;
		} else {
			quick_sort(d, mhi, b, max_depth);
			b = mlo;
		}
	}
	if (b - a > 1) {
		for (long i = a + 6; i < b; i++)
			if (LESS(i, i - 6))
				SWAP(i, i - 6);
		insertion_sort(d, a, b);
	}
}

void go_quicksort(const struct gosort *d, long n)
{
	quick_sort(d, 0, n, 2 * bit_len((unsigned long)n)); /* maxDepth */
}
