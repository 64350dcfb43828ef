/* jobqueue.c - one thread running queued jobs in order, and those queued for
 * later once they are due (jobqueue.h). */
#include "cmd/serve/jobqueue.h"
#include "cmd/cmdclock.h"

/* j at the end of the queue (q->mu held). */
static void append(struct job_queue *q, struct queued_job *j)
{
	j->next = NULL;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
}

/* Move the job_queue__later jobs that are due (all of them when closing) to
 * the end of the queue. */
static void promote(struct job_queue *q)
{
	uint64_t now = now_ns();
	struct queued_job *j;

	while ((j = q->later) && (q->closing || j->due_ns <= now)) {
		q->later = j->next;
		append(q, j);
	}
}

/* Sleep until signalled, or until the soonest later job is due. */
static void wait_work(struct job_queue *q)
{
	struct timespec ts;

	if (!q->later) {
		pthread_cond_wait(&q->cv, &q->mu);
		return;
	}
	ts.tv_sec = (time_t)(q->later->due_ns / 1000000000ull);
	ts.tv_nsec = (long)(q->later->due_ns % 1000000000ull);
	pthread_cond_timedwait(&q->cv, &q->mu, &ts);
}

static void *loop(void *arg)
{
	struct job_queue *q = arg;
	struct queued_job *j;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		promote(q);
		if (!q->head) {
			if (q->closing && !q->later)
				break;
			wait_work(q);
			continue;
		}
		j = q->head;
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		pthread_mutex_unlock(&q->mu);
		j->run(j);
		pthread_mutex_lock(&q->mu);
		q->n--;
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* The condition variable on the monotonic clock, as due_ns is. */
static int cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;
	int rc;

	if (pthread_condattr_init(&a))
		return -1;
	rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC) ||
	     pthread_cond_init(cv, &a);
	pthread_condattr_destroy(&a);
	return rc ? -1 : 0;
}

int job_queue__start(struct job_queue *q, size_t max)
{
	*q = (struct job_queue){.max = max};
	if (pthread_mutex_init(&q->mu, NULL))
		return -1;
	if (cond_init(&q->cv)) {
		pthread_mutex_destroy(&q->mu);
		return -1;
	}
	if (pthread_create(&q->th, NULL, loop, q)) {
		pthread_cond_destroy(&q->cv);
		pthread_mutex_destroy(&q->mu);
		return -1;
	}
	return 0;
}

bool job_queue__reserve(struct job_queue *q)
{
	bool ok;

	pthread_mutex_lock(&q->mu);
	ok = q->n < q->max;
	q->n += ok;
	pthread_mutex_unlock(&q->mu);
	return ok;
}

void job_queue__push(struct job_queue *q, struct queued_job *j)
{
	pthread_mutex_lock(&q->mu);
	append(q, j);
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void job_queue__later(struct job_queue *q, struct queued_job *j,
		      uint64_t due_ns)
{
	struct queued_job **at;

	pthread_mutex_lock(&q->mu);
	/* The run that queues j ends with the loop's q->n--: this keeps
	 * the place for j's second run. */
	q->n++;
	j->due_ns = due_ns;
	for (at = &q->later; *at && (*at)->due_ns <= due_ns; at = &(*at)->next)
		;
	j->next = *at;
	*at = j;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void job_queue__stop(struct job_queue *q)
{
	pthread_mutex_lock(&q->mu);
	q->closing = true;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
}
