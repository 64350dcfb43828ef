/* grow.c - see grow.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/grow.h"

int grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return errno = ENOMEM, -1;
		ncap *= 2;
	}
	np = realloc(*p, ncap * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}
