/* jobs.h - the collector's thread and the bounded queue of requests
 * waiting for it. A collector is used by one thread at a time, and its
 * caches (parsed binaries, kept bucket stacks, the loaded BPF program)
 * are what makes a repeated read cheap: so one thread owns it, and
 * requests that need it wait their turn, first come first served, at
 * most max at a time. A job may also be queued to run later (a delta
 * profile's second snapshot), holding its place meanwhile without
 * holding the thread. */
#ifndef GH_CMD_JOBS_H
#define GH_CMD_JOBS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct job {
	struct job *next;
	void (*run)(struct job *j); /* on the queue's thread */
	uint64_t due_ns;	    /* jobs_later: not run before (now_ns) */
};

struct jobs {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *head, *tail;
	struct job *later; /* jobs_later's, soonest first */
	size_t n, max;	   /* held: waiting, running, or reserved */
	bool closing;
	pthread_t th;
};

int jobs_start(struct jobs *q, size_t max);
/* A place in the queue, or false when max are held (answer 503). */
bool jobs_reserve(struct jobs *q);
/* Queue j into the place reserved. */
void jobs_push(struct jobs *q, struct job *j);
/* From a job's run: queue j again, to run once now_ns() reaches due_ns
 * (or at once when the queue is stopping), keeping the place its request
 * holds. */
void jobs_later(struct jobs *q, struct job *j, uint64_t due_ns);
/* Run what is queued, jobs_later's at once, then end the thread. */
void jobs_stop(struct jobs *q);

#endif
