/* memevent.c - memory events from the kernel instead of polling: cgroup
 * v1 memory thresholds (Documentation/admin-guide/cgroup-v1/memory.rst,
 * "Memory thresholds") and PSI triggers (Documentation/accounting/psi.rst,
 * "Userspace monitors"). The event stays registered while its descriptor
 * is open: closing it removes it. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/err.h"
#include "base/units.h"
#include "watch/memevent.h"

/* The kernel's window bounds for a trigger (psi.c). */
#define PSI_WINDOW_MIN_US 500000ULL
#define PSI_WINDOW_MAX_US 10000000ULL

static int bad_spec(const char *s, struct gh_err *err)
{
	return err_set(err, GH_E_USAGE,
		       "invalid pressure trigger '%s': want some|full:STALL/"
		       "WINDOW, e.g. some:150ms/1s, with WINDOW from 500ms "
		       "to 10s and STALL at most WINDOW",
		       s);
}

int psi_spec__parse(const char *s, struct psi_spec *out, struct gh_err *err)
{
	char stall[32], window[32];
	const char *slash, *rest;
	size_t n;

	if (!strncmp(s, "some:", 5))
		out->full = false;
	else if (!strncmp(s, "full:", 5))
		out->full = true;
	else
		return bad_spec(s, err);
	rest = s + 5;
	slash = strchr(rest, '/');
	if (!slash || (n = (size_t)(slash - rest)) >= sizeof(stall) ||
	    strlen(slash + 1) >= sizeof(window))
		return bad_spec(s, err);
	memcpy(stall, rest, n);
	stall[n] = '\0';
	strcpy(window, slash + 1);
	if (units_duration_us(stall, &out->stall_us) ||
	    units_duration_us(window, &out->window_us) ||
	    out->window_us < PSI_WINDOW_MIN_US ||
	    out->window_us > PSI_WINDOW_MAX_US ||
	    out->stall_us > out->window_us)
		return bad_spec(s, err);
	return 0;
}

int memevent_threshold(const char *dir, uint64_t bytes, int *fd,
		       struct gh_err *err)
{
	char path[GH_PATH_MAX + 64], line[96];
	int efd, ufd = -1, cfd = -1, n;

	*fd = -1;
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	snprintf(path, sizeof(path), "%s/memory.usage_in_bytes", dir);
	if (efd >= 0)
		ufd = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/cgroup.event_control", dir);
	if (ufd >= 0)
		cfd = open(path, O_WRONLY | O_CLOEXEC);
	n = snprintf(line, sizeof(line), "%d %d %" PRIu64, efd, ufd, bytes);
	if (cfd < 0 || write(cfd, line, (size_t)n) != n) {
		err_set(err, errno == EACCES ? GH_E_PERM : GH_E_FAILED,
			"cannot register a memory threshold in %s: %s; run as "
			"root",
			path, strerror(errno));
		if (efd >= 0)
			close(efd);
		efd = -1;
	}
	/* The registration holds the cgroup; the usage file may go. */
	if (ufd >= 0)
		close(ufd);
	if (cfd >= 0)
		close(cfd);
	*fd = efd;
	return efd < 0 ? -1 : 0;
}

uint64_t memevent_ack(int fd)
{
	uint64_t n;

	return read(fd, &n, sizeof(n)) == sizeof(n) ? n : 0;
}

int memevent_pressure(const char *file, const struct psi_spec *s, int *fd,
		      struct gh_err *err)
{
	char line[96];
	int n;

	*fd = open(file, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (*fd < 0 && errno == ENOENT)
		return err_set(err, GH_E_KERNEL,
			       "this kernel has no pressure stall information "
			       "(%s is missing: built without CONFIG_PSI, or "
			       "booted with psi=0); boot with psi=1, or watch "
			       "without a pressure trigger",
			       file);
	if (*fd < 0)
		return err_set(err, errno == EACCES ? GH_E_PERM : GH_E_FAILED,
			       "cannot open %s for a pressure trigger: %s; run "
			       "as root",
			       file, strerror(errno));
	n = snprintf(line, sizeof(line), "%s %" PRIu64 " %" PRIu64,
		     s->full ? "full" : "some", s->stall_us, s->window_us);
	if (write(*fd, line, (size_t)n + 1) < 0) {
		int e = errno;

		close(*fd);
		*fd = -1;
		if (e == EINVAL && s->window_us % 2000000)
			return err_set(err, GH_E_PERM,
				       "the kernel refused the pressure "
				       "trigger '%s' on %s: without "
				       "CAP_SYS_RESOURCE a window must be a "
				       "multiple of 2s; run with "
				       "CAP_SYS_RESOURCE or give a window "
				       "such as 2s",
				       line, file);
		return err_set(
			err,
			e == EOPNOTSUPP ? GH_E_KERNEL
			: e == EPERM	? GH_E_PERM
					: GH_E_FAILED,
			"cannot add the pressure trigger '%s' to %s: %s%s",
			line, file, strerror(e),
			e == EOPNOTSUPP
				? "; this kernel has PSI but no triggers "
				  "on it: watch without a pressure trigger"
				: "; run as root (CAP_SYS_RESOURCE)");
	}
	return 0;
}

void memevent_pressure_now(const char *file, char *buf, size_t size)
{
	FILE *f = fopen(file, "re");
	size_t n = 0;
	int c;

	buf[0] = '\0';
	if (!f || !size)
		goto out;
	while ((c = fgetc(f)) != EOF && n + 1 < size)
		buf[n++] = c == '\n' ? ';' : (char)c;
	while (n && (buf[n - 1] == ';' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
out:
	if (f)
		fclose(f);
}

void memevent_pressure_felt(int version, const char *dir, char *buf,
			    size_t size)
{
	char file[GH_PATH_MAX + 32];

	snprintf(file, sizeof(file), "%s/memory.pressure", dir);
	if (version != 2 || access(file, R_OK))
		snprintf(file, sizeof(file), "/proc/pressure/memory");
	memevent_pressure_now(file, buf, size);
}
