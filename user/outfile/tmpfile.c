/* tmpfile.c - temporary files a signal handler can remove: a list of
 * slots, in chunks that are never freed, so that a handler can walk it
 * while other threads add and drop files. A slot is owned by whoever
 * moves its state away from LIVE (compare-and-exchange): its thread when
 * publishing or discarding the file, or tmp_unlink_all, after which the
 * slot is never reused (the process is ending, and a handler may still
 * be using its directory descriptor). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "outfile/tmpfile.h"

_Static_assert(ATOMIC_INT_LOCK_FREE == 2 && ATOMIC_POINTER_LOCK_FREE == 2 &&
		       ATOMIC_BOOL_LOCK_FREE == 2,
	       "a signal handler may use only lock-free atomics");

/* Names tried before giving up: each is random, so a clash is someone
 * else's file, never a reason to write into it (O_EXCL). */
#define TMP_TRIES 100
#define SLOTS	  64

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE, SLOT_GONE };

struct tmpfile {
	atomic_int state;
	int dirfd; /* a descriptor of its own: the output may close its */
	char name[NAME_MAX + 1];
};

struct chunk {
	struct tmpfile v[SLOTS];
	struct chunk *_Atomic next;
};

static struct chunk first;
static atomic_bool closing;

/* A free slot, now BUSY; NULL when out of memory. */
static struct tmpfile *acquire(void)
{
	struct chunk *c = &first, *next, *fresh;

	for (;;) {
		for (int i = 0; i < SLOTS; i++) {
			int want = SLOT_FREE;

			if (atomic_compare_exchange_strong(&c->v[i].state,
							   &want, SLOT_BUSY))
				return &c->v[i];
		}
		next = atomic_load(&c->next);
		if (next) {
			c = next;
			continue;
		}
		fresh = calloc(1, sizeof(*fresh));
		if (!fresh)
			return NULL;
		fresh->v[0].state = SLOT_BUSY;
		if (atomic_compare_exchange_strong(&c->next, &next, fresh))
			return &fresh->v[0];
		free(fresh); /* another thread added one: look there */
		c = next;
	}
}

static void release(struct tmpfile *t)
{
	if (t->dirfd >= 0)
		close(t->dirfd);
	atomic_store(&t->state, SLOT_FREE);
}

/* Take t back from the list: false if tmp_unlink_all took it first. */
static bool claim(struct tmpfile *t)
{
	int want = SLOT_LIVE;

	return atomic_compare_exchange_strong(&t->state, &want, SLOT_BUSY);
}

static void block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

static void restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* dest.tmp.XXXXXX, XXXXXX random; .goheap-XXXXXX when that would pass
 * NAME_MAX, so that a name near the limit still gets its temporary file
 * in its own directory (the rename stays atomic). */
static void random_name(char *s, const char *dest)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	size_t n;

	/* Without entropy (early boot), fixed bits: O_EXCL still makes a
	 * clash a retry, never a shared file. */
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		memset(r, 0, sizeof(r));
	if (strlen(dest) + strlen(".tmp.XXXXXX") <= NAME_MAX)
		snprintf(s, NAME_MAX + 1, "%s.tmp.XXXXXX", dest);
	else
		snprintf(s, NAME_MAX + 1, ".goheap-XXXXXX");
	n = strlen(s) - sizeof(r);
	for (size_t i = 0; i < sizeof(r); i++)
		s[n + i] = set[r[i] % (sizeof(set) - 1)];
}

/* t's file, created as fd, is listed from now on - unless tmp_unlink_all
 * ran meanwhile on another thread, perhaps past t's slot: then it goes. */
static int go_live(struct tmpfile *t, int fd)
{
	atomic_store(&t->state, SLOT_LIVE);
	if (!atomic_load(&closing))
		return fd;
	close(fd);
	if (claim(t)) {
		unlinkat(t->dirfd, t->name, 0);
		release(t);
	}
	errno = ECANCELED;
	return -1;
}

int tmp_create(int dirfd, const char *dest, mode_t mode, struct tmpfile **out)
{
	struct tmpfile *t;
	sigset_t old;
	int fd = -1, e;

	block_signals(&old);
	t = acquire();
	if (!t) {
		restore_signals(&old);
		errno = ENOMEM;
		return -1;
	}
	t->dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	for (int i = 0; t->dirfd >= 0 && i < TMP_TRIES && fd < 0; i++) {
		random_name(t->name, dest);
		fd = openat(t->dirfd, t->name,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				    O_CLOEXEC,
			    mode);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0) {
		fd = go_live(t, fd);
	} else {
		e = errno;
		release(t);
		errno = e;
	}
	restore_signals(&old);
	*out = fd >= 0 ? t : NULL;
	return fd;
}

int tmp_publish(struct tmpfile *t, const char *name)
{
	sigset_t old;
	int rc = -1, e = ECANCELED;

	block_signals(&old);
	if (claim(t)) {
		rc = renameat(t->dirfd, t->name, t->dirfd, name);
		e = errno;
		if (rc)
			unlinkat(t->dirfd, t->name, 0);
		release(t);
	}
	restore_signals(&old);
	errno = e;
	return rc;
}

void tmp_discard(struct tmpfile *t)
{
	sigset_t old;

	block_signals(&old);
	if (claim(t)) {
		unlinkat(t->dirfd, t->name, 0);
		release(t);
	}
	restore_signals(&old);
}

void tmp_unlink_all(void)
{
	int e = errno;

	/* First, so that a file being listed right now sees it (go_live)
	 * if this walk passes its slot too early. */
	atomic_store(&closing, true);
	for (struct chunk *c = &first; c; c = atomic_load(&c->next)) {
		for (int i = 0; i < SLOTS; i++) {
			int want = SLOT_LIVE;

			if (atomic_compare_exchange_strong(&c->v[i].state,
							   &want, SLOT_GONE))
				unlinkat(c->v[i].dirfd, c->v[i].name, 0);
		}
	}
	errno = e;
}
