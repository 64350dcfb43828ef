/* handoff.c - a bounded FIFO of results between two threads, under one
 * mutex and one condition variable (each side waits for the other's
 * change: a free slot, a result, the end). */
#include "cmd/sweep/handoff.h"

int handoff__init(struct handoff *h)
{
	*h = (struct handoff){.head = 0};
	if (pthread_mutex_init(&h->mu, NULL))
		return -1;
	if (pthread_cond_init(&h->changed, NULL)) {
		pthread_mutex_destroy(&h->mu);
		return -1;
	}
	return 0;
}

void handoff__destroy(struct handoff *h)
{
	struct gh_result r;

	while (handoff__get(h, &r))
		gh_profile__free(r.profile);
	pthread_cond_destroy(&h->changed);
	pthread_mutex_destroy(&h->mu);
}

void handoff__put(struct handoff *h, struct gh_result *r)
{
	pthread_mutex_lock(&h->mu);
	while (h->n == HANDOFF_MAX)
		pthread_cond_wait(&h->changed, &h->mu);
	h->v[(h->head + h->n++) % HANDOFF_MAX] = *r;
	r->profile = NULL;
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->mu);
}

void handoff__close(struct handoff *h)
{
	pthread_mutex_lock(&h->mu);
	h->closed = true;
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->mu);
}

bool handoff__get(struct handoff *h, struct gh_result *r)
{
	bool got;

	pthread_mutex_lock(&h->mu);
	while (!h->n && !h->closed)
		pthread_cond_wait(&h->changed, &h->mu);
	got = h->n > 0;
	if (got) {
		*r = h->v[h->head];
		h->head = (h->head + 1) % HANDOFF_MAX;
		h->n--;
		pthread_cond_broadcast(&h->changed);
	}
	pthread_mutex_unlock(&h->mu);
	return got;
}
