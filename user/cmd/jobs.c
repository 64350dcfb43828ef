/* jobs.c - one thread running queued jobs in order (jobs.h). */
#include "cmd/jobs.h"

static void *loop(void *arg)
{
	struct jobs *q = arg;
	struct job *j;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->head && !q->closing)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!q->head)
			break;
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

int jobs_start(struct jobs *q, size_t max)
{
	*q = (struct jobs){.max = max};
	if (pthread_mutex_init(&q->mu, NULL))
		return -1;
	if (pthread_cond_init(&q->cv, NULL)) {
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

bool jobs_reserve(struct jobs *q)
{
	bool ok;

	pthread_mutex_lock(&q->mu);
	ok = q->n < q->max;
	q->n += ok;
	pthread_mutex_unlock(&q->mu);
	return ok;
}

void jobs_push(struct jobs *q, struct job *j)
{
	pthread_mutex_lock(&q->mu);
	j->next = NULL;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void jobs_stop(struct jobs *q)
{
	pthread_mutex_lock(&q->mu);
	q->closing = true;
	pthread_cond_signal(&q->cv);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->th, NULL);
	pthread_cond_destroy(&q->cv);
	pthread_mutex_destroy(&q->mu);
}
