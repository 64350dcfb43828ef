/* err.c - the one error convention: a status class that is also the CLI's
 * exit status, and a one-line message naming the cause and the fix. */
#include <stdarg.h>
#include <stdio.h>

#include "base/err.h"

int err_set(struct gh_err *err, enum gh_status code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}
