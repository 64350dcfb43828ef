/* jsonenc.h - JSON's strings and numbers as every JSON document of the
 * library writes them, and as Go's encoding/json does: strings valid UTF-8
 * (a byte that is not becomes U+FFFD), < > & as \u003c \u003e \u0026, so
 * that a document is safe inside HTML too, and U+2028 and U+2029 escaped,
 * so that it is valid JavaScript. gh_json__quote (goheap.h) is the quoted
 * string. */
#ifndef GH_WRITE_JSONENC_H
#define GH_WRITE_JSONENC_H

#include <stdio.h>

/* s escaped for the inside of a JSON string, no quotes. */
void jsonenc_escaped(FILE *f, const char *s);

/* The shortest decimal that reads back as x: plain where Go's encoding/json
 * writes plain numbers (1e-6 <= |x| < 1e21), else with an exponent. */
void jsonenc_double(FILE *f, double x);

#endif
