/* runstat.c - run a command and write what it cost to a file: wall time,
 * CPU time (user + system, children included) and peak RSS, with the
 * microsecond resolution of wait4's rusage (GNU time rounds to 10 ms).
 *
 * Usage: runstat OUTFILE CMD [ARG...]
 * OUTFILE gets "WALL_MS CPU_MS MAXRSS_KIB STATUS".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double ms(struct timeval tv)
{
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	FILE *out;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: runstat OUTFILE CMD [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("runstat: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("runstat: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid) {
		perror("runstat: wait4");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out = fopen(argv[1], "w");
	if (!out) {
		perror("runstat: output");
		return 1;
	}
	fprintf(out, "%.1f %.1f %ld %d\n",
		(t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
		ms(ru.ru_utime) + ms(ru.ru_stime), ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128);
	return fclose(out) ? 1 : 0;
}
