/* host.c - a C program hosting Go c-shared libraries (tests/targets/build.sh
 * c-shared mode), for goheap-bpf's tests of Go runtimes in shared
 * libraries:
 *
 *   host READY LIB PROFILE LIBREADY [LIB PROFILE LIBREADY ...]
 *
 * dlopen every LIB first (RTLD_LOCAL: two libraries built from the same
 * source must not bind to each other's symbols), so each library's own
 * profile sees every library mapped. Then, for each in turn, call its
 * HeapgenRun(PROFILE, LIBREADY) on a thread of its own (it never returns)
 * and wait until LIBREADY exists, so the libraries' runtimes never change
 * the environment at the same time. Then create READY and idle. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef void (*run_fn)(char *profile, char *ready);

struct lib {
	run_fn run;
	char *profile, *ready;
};

static void *run_lib(void *arg)
{
	struct lib *l = arg;

	l->run(l->profile, l->ready);
	return NULL;
}

static int load_lib(const char *path, struct lib *l)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "host: %s\n", dlerror());
		return -1;
	}
	*(void **)&l->run = dlsym(h, "HeapgenRun");
	if (!l->run) {
		fprintf(stderr, "host: %s: no HeapgenRun\n", path);
		return -1;
	}
	return 0;
}

static int start_lib(const char *path, struct lib *l)
{
	pthread_t th;
	int i;

	if (pthread_create(&th, NULL, run_lib, l)) {
		fprintf(stderr, "host: cannot start a thread\n");
		return -1;
	}
	for (i = 0; i < 600 && access(l->ready, F_OK); i++)
		usleep(100000);
	if (access(l->ready, F_OK)) {
		fprintf(stderr, "host: %s never got ready\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lib libs[8];
	int i, n = (argc - 2) / 3;
	FILE *f;

	if (argc < 5 || (argc - 2) % 3 || n > 8) {
		fprintf(stderr, "usage: host READY LIB PROFILE LIBREADY ...\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		libs[i].profile = argv[3 + 3 * i];
		libs[i].ready = argv[4 + 3 * i];
		if (load_lib(argv[2 + 3 * i], &libs[i]))
			return 1;
	}
	for (i = 0; i < n; i++)
		if (start_lib(argv[2 + 3 * i], &libs[i]))
			return 1;
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
		fprintf(stderr, "host: cannot write %s\n", argv[1]);
		return 1;
	}
	for (;;)
		pause();
}
