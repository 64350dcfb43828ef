/* jobs.h - the collector's thread and the bounded queue of requests
 * waiting for it. A collector is used by one thread at a time, and its
 * caches (parsed binaries, kept bucket stacks, the loaded BPF program)
 * are what makes a repeated read cheap: so one thread owns it, and
 * requests that need it wait their turn, first come first served, at
 * most max at a time. */
#ifndef GH_CMD_JOBS_H
#define GH_CMD_JOBS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct job {
	struct job *next;
	void (*run)(struct job *j); /* on the queue's thread */
};

struct jobs {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *head, *tail;
	size_t n, max; /* held: waiting, running, or reserved */
	bool closing;
	pthread_t th;
};

int jobs_start(struct jobs *q, size_t max);
/* A place in the queue, or false when max are held (answer 503). */
bool jobs_reserve(struct jobs *q);
/* Queue j into the place reserved. */
void jobs_push(struct jobs *q, struct job *j);
/* Run what is queued, then end the thread. */
void jobs_stop(struct jobs *q);

#endif
