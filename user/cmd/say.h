/* say.h - the command's one-line messages on stderr. */
#ifndef GH_CMD_SAY_H
#define GH_CMD_SAY_H

/* "goheap-bpf: <prefix><msg>", the library's fixes named as the flags
 * that apply them. */
void say(const char *prefix, const char *msg);

/* A library debug line (libbpf's, the verifier's: --verbose), as is. */
void say_debug_line(void *arg, const char *line);

#endif
