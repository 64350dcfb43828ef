/* bytepipe.c - see bytepipe.h. A ring of NCHUNKS chunks: the producer
 * fills chunk (produced % NCHUNKS) while the consumer empties chunk
 * (consumed % NCHUNKS); the producer waits only when every chunk is full,
 * the consumer only when none is. One mutex and one condition variable: each
 * side wakes the other at most once per chunk. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/bytepipe.h"

#define NCHUNKS 4

struct bytepipe {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bytepipe_fn fn;
	void *ctx;
	size_t chunk_bytes;
	uint8_t *data[NCHUNKS];
	size_t len[NCHUNKS];
	size_t fill; /* bytes committed to the chunk being filled */
	/* Chunks handed over and chunks emptied; both only grow. */
	unsigned long produced, consumed;
	int err;
	bool quit;
};

static void *consume(void *arg)
{
	struct bytepipe *p = arg;
	unsigned i;
	int rc;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		while (p->consumed == p->produced && !p->quit)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->consumed == p->produced)
			break;
		i = p->consumed % NCHUNKS;
		rc = p->err;
		pthread_mutex_unlock(&p->mu);
		/* The chunk is the consumer's alone until consumed moves. */
		if (!rc)
			rc = p->fn(p->ctx, p->data[i], p->len[i]);
		pthread_mutex_lock(&p->mu);
		if (rc && !p->err)
			p->err = rc;
		p->consumed++;
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

static void free_chunks(struct bytepipe *p)
{
	for (int i = 0; i < NCHUNKS; i++)
		free(p->data[i]);
}

int bytepipe__new(struct bytepipe **out, size_t chunk_bytes, bytepipe_fn fn,
		  void *ctx)
{
	struct bytepipe *p = calloc(1, sizeof(*p));
	int rc;

	*out = NULL;
	if (!p)
		return -1;
	p->fn = fn;
	p->ctx = ctx;
	p->chunk_bytes = chunk_bytes;
	for (int i = 0; i < NCHUNKS; i++)
		if (!(p->data[i] = malloc(chunk_bytes)))
			goto fail;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	rc = pthread_create(&p->thread, NULL, consume, p);
	if (rc) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		errno = rc;
		goto fail;
	}
	*out = p;
	return 0;
fail:
	free_chunks(p);
	free(p);
	return -1;
}

/* Hand the chunk being filled to the consumer (caller holds mu). */
static void publish(struct bytepipe *p)
{
	p->len[p->produced % NCHUNKS] = p->fill;
	p->produced++;
	p->fill = 0;
	pthread_cond_broadcast(&p->cv);
}

void *bytepipe__reserve(struct bytepipe *p, size_t n)
{
	bool failed;

	if (n > p->chunk_bytes)
		return NULL;
	if (p->chunk_bytes - p->fill >= n)
		return p->data[p->produced % NCHUNKS] + p->fill;
	pthread_mutex_lock(&p->mu);
	publish(p);
	while (p->produced - p->consumed == NCHUNKS)
		pthread_cond_wait(&p->cv, &p->mu);
	failed = p->err != 0;
	pthread_mutex_unlock(&p->mu);
	return failed ? NULL : p->data[p->produced % NCHUNKS];
}

void bytepipe__commit(struct bytepipe *p, size_t n)
{
	p->fill += n;
}

int bytepipe__sync(struct bytepipe *p)
{
	int rc;

	pthread_mutex_lock(&p->mu);
	if (p->fill)
		publish(p);
	while (p->consumed != p->produced)
		pthread_cond_wait(&p->cv, &p->mu);
	rc = p->err;
	p->err = 0;
	pthread_mutex_unlock(&p->mu);
	return rc;
}

void bytepipe__free(struct bytepipe *p)
{
	if (!p)
		return;
	bytepipe__sync(p);
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free_chunks(p);
	free(p);
}
