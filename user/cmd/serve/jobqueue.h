/* jobqueue.h - the collector's thread and the bounded queue of requests
 * waiting for it. A collector is used by one thread at a time, and its
 * caches (parsed binaries, kept bucket stacks, the loaded BPF program)
 * are what makes a repeated read cheap: so one thread owns it, and
 * requests that need it wait their turn, first come first served, at
 * most max at a time. A job may also be queued to run later (a delta
 * profile's second snapshot), holding its place meanwhile without
 * holding the thread. */
#ifndef GH_CMD_SERVE_JOBQUEUE_H
#define GH_CMD_SERVE_JOBQUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct queued_job {
	struct queued_job *next;
	void (*run)(struct queued_job *j); /* on the queue's thread */
	uint64_t due_ns; /* job_queue__later: not run before (now_ns) */
};

struct job_queue {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct queued_job *head, *tail;
	struct queued_job *later; /* job_queue__later's, soonest first */
	size_t n, max;		  /* held: waiting, running, or reserved */
	bool closing;
	pthread_t th;
};

int job_queue__start(struct job_queue *q, size_t max);
/* A place in the queue, or false when max are held (answer 503). */
bool job_queue__reserve(struct job_queue *q);
/* Queue j into the place reserved. */
void job_queue__push(struct job_queue *q, struct queued_job *j);
/* From a job's run: queue j again, to run once now_ns() reaches due_ns
 * (or at once when the queue is stopping), keeping the place its request
 * holds. */
void job_queue__later(struct job_queue *q, struct queued_job *j,
		      uint64_t due_ns);
/* Run what is queued, job_queue__later's at once, then end the thread. */
void job_queue__stop(struct job_queue *q);

#endif
