/* jsonenc.h - JSON's strings and numbers as every JSON document of the
 * library writes them, and as Go's encoding/json does: strings valid UTF-8
 * (a byte that is not becomes U+FFFD), < > & as \u003c \u003e \u0026, so
 * that a document is safe inside HTML too, and U+2028 and U+2029 escaped,
 * so that it is valid JavaScript. gh_json__quote is the command's too
 * (cli/cli.h). */
#ifndef GH_WRITE_JSONENC_H
#define GH_WRITE_JSONENC_H

#include <stdio.h>

/* s as a JSON string, quotes included, escaped as every JSON document of
 * the library and the command is, and as Go's encoding/json does:
 * \" \\ \n \r \t for those five; the other control characters, < > &
 * and U+2028/U+2029 as \uXXXX (so that it is safe inside HTML and
 * JavaScript); each byte that is not valid UTF-8 as U+FFFD. */
void gh_json__quote(FILE *f, const char *s);

/* s escaped for the inside of a JSON string, no quotes. */
void jsonenc_escaped(FILE *f, const char *s);

/* The shortest decimal that reads back as x: plain where Go's encoding/json
 * writes plain numbers (1e-6 <= |x| < 1e21), else with an exponent. */
void jsonenc_double(FILE *f, double x);

#endif
