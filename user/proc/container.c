/* container.c - see container.h. The path is read one component at a
 * time; the deepest component naming a container wins (a runtime may nest
 * its own cgroups below the container's, like podman's "container"), and
 * the pod is the first pod component met. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "proc/container.h"

#define HEX_ID_LEN 64
#define UID_LEN	   36

/* Runtimes that name a container's cgroup PREFIX<64 hex>.scope. */
static const struct {
	const char *prefix, *runtime;
} scopes[] = {
	{"docker-", "docker"},
	{"cri-containerd-", "containerd"},
	{"crio-", "cri-o"},
	{"libpod-", "podman"},
};

static bool hex_id(const char *s, size_t n)
{
	if (n != HEX_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
			return false;
	return true;
}

/* 8-4-4-4-12 hex digits, dashes (or the systemd driver's underscores). */
static bool pod_uid(const char *s, size_t n)
{
	if (n != UID_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		bool sep = i == 8 || i == 13 || i == 18 || i == 23;

		if (sep ? s[i] != '-' && s[i] != '_'
			: !isxdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

/* Does component c (n bytes) end with suffix? */
static bool ends(const char *c, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(c + n - k, suffix, k);
}

static void set_id(struct container *out, const char *id, size_t n,
		   const char *runtime)
{
	snprintf(out->id, sizeof(out->id), "%.*s", (int)n, id);
	snprintf(out->runtime, sizeof(out->runtime), "%s", runtime);
}

/* A machine name as systemd-nspawn takes it. */
static bool machine_name(const char *s, size_t n)
{
	if (!n || n >= CONTAINER_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("-_.", s[i]))
			return false;
	return true;
}

/* Component c (n bytes) as a container's cgroup; parent: the one above. */
static void container__part(const char *c, size_t n, const char *parent,
			    size_t pn, struct container *out)
{
	const size_t nspawn = sizeof("systemd-nspawn@") - 1;

	if (hex_id(c, n)) {
		set_id(out, c, n,
		       pn == 6 && !memcmp(parent, "docker", 6) ? "docker" : "");
		return;
	}
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t k = strlen(scopes[i].prefix);

		if (n == k + HEX_ID_LEN + 6 &&
		    !memcmp(c, scopes[i].prefix, k) && ends(c, n, ".scope") &&
		    hex_id(c + k, HEX_ID_LEN)) {
			set_id(out, c + k, HEX_ID_LEN, scopes[i].runtime);
			return;
		}
	}
	if (n > nspawn + 8 && !memcmp(c, "systemd-nspawn@", nspawn) &&
	    ends(c, n, ".service") && machine_name(c + nspawn, n - nspawn - 8))
		set_id(out, c + nspawn, n - nspawn - 8, "systemd-nspawn");
}

/* Component c (n bytes) as a pod's cgroup: pod<UID> (cgroupfs driver) or
 * kubepods[-QOS]-pod<UID>.slice (systemd driver). */
static void pod_part(const char *c, size_t n, struct container *out)
{
	const char *uid = NULL;

	if (n == 3 + UID_LEN && !memcmp(c, "pod", 3))
		uid = c + 3;
	else if (n > 8 + UID_LEN + 6 && !memcmp(c, "kubepods", 8) &&
		 ends(c, n, ".slice") &&
		 !memcmp(c + n - 6 - UID_LEN - 4, "-pod", 4))
		uid = c + n - 6 - UID_LEN;
	if (!uid || !pod_uid(uid, UID_LEN))
		return;
	for (size_t i = 0; i < UID_LEN; i++)
		out->pod_uid[i] = uid[i] == '_' ? '-' : uid[i];
	out->pod_uid[UID_LEN] = '\0';
}

void container_of(const char *path, struct container *out)
{
	const char *c = path, *parent = "", *slash;
	size_t n, pn = 0;

	memset(out, 0, sizeof(*out));
	while (*c) {
		slash = strchr(c, '/');
		n = slash ? (size_t)(slash - c) : strlen(c);
		if (n) {
			container__part(c, n, parent, pn, out);
			if (!out->pod_uid[0])
				pod_part(c, n, out);
			parent = c;
			pn = n;
		}
		c += n + (slash != NULL);
	}
}
