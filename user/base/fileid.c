/* fileid.c - see fileid.h. */
#include <sys/stat.h>

#include "base/fileid.h"

int fileid__of(const char *path, struct fileid *id)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	*id = (struct fileid){(uint64_t)st.st_dev, (uint64_t)st.st_ino,
			      (uint64_t)st.st_size, st.st_mtim.tv_sec,
			      st.st_mtim.tv_nsec};
	return 0;
}

uint64_t fileid__hash(const struct fileid *id)
{
	const uint64_t w[5] = {id->dev, id->ino, id->size,
			       (uint64_t)id->mtime_sec,
			       (uint64_t)id->mtime_nsec};
	uint64_t h = 1469598103934665603ULL; /* FNV-1a over the words */

	for (int i = 0; i < 5; i++)
		h = (h ^ w[i]) * 1099511628211ULL;
	return h;
}

bool fileid__eq(const struct fileid *a, const struct fileid *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}
