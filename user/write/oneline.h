/* oneline.h - a stream that puts a JSON document on one line: JSON Lines
 * from json.c's indented output. */
#ifndef GH_WRITE_ONELINE_H
#define GH_WRITE_ONELINE_H

#include <stdio.h>

/* A stream writing to f what it is given, less each newline and the
 * indentation after it; the caller ends the line. Exact for json.c's
 * documents, whose strings escape every control character: no newline
 * or indentation inside a string is dropped. NULL when out of memory.
 * Closing it flushes into f and leaves f open; a write error of f shows
 * as the stream's. */
FILE *oneline_open(FILE *f);

#endif
