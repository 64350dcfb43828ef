/* memevent.h - the kernel's memory event sources, as descriptors to
 * poll(2): a cgroup v1 memory threshold (an eventfd registered through
 * cgroup.event_control on memory.usage_in_bytes: readable whenever usage
 * crosses it, either way) and a PSI trigger (POLLPRI once the stall
 * within a window reaches its bound). */
#ifndef GH_WATCH_MEMEVENT_H
#define GH_WATCH_MEMEVENT_H

#include <stdint.h>

#include "goheap.h"

/* A PSI trigger: "some" or "full" stall of stall_us within window_us. */
struct psi_spec {
	bool full;
	uint64_t stall_us, window_us;
};

/* "some:150ms/1s", "full:100ms/2s": the kernel's bounds (window 500 ms to
 * 10 s, stall at most the window) checked; USAGE naming them. */
int psi_spec__parse(const char *s, struct psi_spec *out, struct gh_err *err);

/* An eventfd that becomes readable when the v1 memory cgroup at dir
 * crosses bytes. FAILED naming the file when it cannot be registered. */
int memevent_threshold(const char *dir, uint64_t bytes, int *fd,
		       struct gh_err *err);

/* Read (and so reset) an eventfd's count; 0 when nothing fired. */
uint64_t memevent_ack(int fd);

/* A PSI trigger on file (/proc/pressure/memory or a v2 cgroup's
 * memory.pressure): poll it for POLLPRI. KERNEL, saying so, when the
 * kernel has no PSI; PERM without the right to add triggers. */
int memevent_pressure(const char *file, const struct psi_spec *s, int *fd,
		      struct gh_err *err);

/* The "some" and "full" lines of a pressure file on one line, into buf
 * ("" when it cannot be read). */
void memevent_pressure_now(const char *file, char *buf, size_t size);

/* The same for the memory pressure felt in a memory cgroup (version,
 * dir): its v2 memory.pressure, else the system's; "" without PSI. */
void memevent_pressure_felt(int version, const char *dir, char *buf,
			    size_t size);

#endif
