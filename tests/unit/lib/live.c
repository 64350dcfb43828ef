/* live.c - see live.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "live.h"

/* The heapgen runs' directories, removed when they stop. */
static struct {
	pid_t pid;
	char dir[32];
} dirs[64];

static void nap_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Wait (60 s at most) for path to exist while pid lives. */
static void wait_file(const char *path, pid_t pid)
{
	struct stat st;

	for (int i = 0; i < 6000; i++) {
		if (!stat(path, &st))
			return;
		if (waitpid(pid, NULL, WNOHANG) == pid)
			fail_msg("target %d exited before %s appeared", pid,
				 path);
		nap_ms(10);
	}
	fail_msg("target %d: %s did not appear", pid, path);
}

pid_t live_heapgen(int rate)
{
	char exe[4096], dir[] = "/tmp/gh_live_XXXXXX", ready[64], prof[64],
			rs[16];
	pid_t pid;

	snprintf(exe, sizeof(exe), "%s/targets/heapgen", fixture_dir());
	assert_non_null(mkdtemp(dir));
	snprintf(ready, sizeof(ready), "%s/ready", dir);
	snprintf(prof, sizeof(prof), "%s/own.pb.gz", dir);
	snprintf(rs, sizeof(rs), "%d", rate);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("HEAPGEN_RATE", rs, 1);
		setenv("HEAPGEN_PROFILE", prof, 1);
		setenv("HEAPGEN_READY", ready, 1);
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	wait_file(ready, pid);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!dirs[i].pid) {
			dirs[i].pid = pid;
			snprintf(dirs[i].dir, sizeof(dirs[i].dir), "%s", dir);
			break;
		}
	return pid;
}

pid_t live_benchgen(size_t n)
{
	char exe[4096], num[32], line[128];
	int fd[2];
	pid_t pid;
	FILE *f;

	snprintf(exe, sizeof(exe), "%s/targets/benchgen", fixture_dir());
	snprintf(num, sizeof(num), "%zu", n);
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("BENCHGEN_BUCKETS", num, 1);
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execl(exe, exe, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	assert_non_null(f);
	/* It prints its address once every stack is allocated. */
	if (!fgets(line, sizeof(line), f))
		fail_msg("benchgen (%zu buckets) did not start", n);
	fclose(f);
	return pid;
}

/* Is pid asleep (state S in /proc/PID/stat), past its loading? */
static bool asleep(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t k;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	k = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[k] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] == 'S';
}

pid_t live_sleeper(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execlp("sleep", "sleep", "600", (char *)NULL);
		_exit(127);
	}
	/* Until exec, the child is still this (Go-less) test program; until
	 * it sleeps, the dynamic loader may still be mapping its libraries
	 * (a collect would find new files at its next read). */
	for (int i = 0; i < 500; i++) {
		char path[64], buf[256];
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		k = readlink(path, buf, sizeof(buf) - 1);
		if (k > 0 && (buf[k] = '\0', strstr(buf, "sleep")) &&
		    asleep(pid))
			return pid;
		nap_ms(10);
	}
	fail_msg("sleep did not start");
	return pid;
}

void live_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		char path[64];

		if (dirs[i].pid != pid)
			continue;
		snprintf(path, sizeof(path), "%s/ready", dirs[i].dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/own.pb.gz", dirs[i].dir);
		unlink(path);
		rmdir(dirs[i].dir);
		dirs[i].pid = 0;
	}
}
