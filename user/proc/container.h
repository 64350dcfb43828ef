/* container.h - which container and Kubernetes pod a process belongs to,
 * read from its cgroup path the way container runtimes name their cgroups:
 * docker (cgroupfs: /docker/ID; systemd: docker-ID.scope), containerd
 * (cri-containerd-ID.scope, or a bare ID under a pod), cri-o (crio-ID),
 * podman (libpod-ID), systemd-nspawn (systemd-nspawn@NAME.service), and the
 * kubelet's pod cgroups (pod<UID>, kubepods-...-pod<UID>.slice with '_'
 * for '-'), on cgroup v1 and v2 alike. The path is untrusted text: only
 * exact shapes are taken. */
#ifndef GH_PROC_CONTAINER_H
#define GH_PROC_CONTAINER_H

#include <stddef.h>

/* The ID's longest form: a 64-hex container ID, or a machine name. */
#define CONTAINER_ID_MAX 80
#define POD_UID_MAX	 40

struct container {
	char id[CONTAINER_ID_MAX]; /* "" when none */
	char runtime[16];	   /* "docker", "containerd", "cri-o",
				      "podman", "systemd-nspawn", "" */
	char pod_uid[POD_UID_MAX]; /* "" when none; with dashes */
};

/* What cgroup path path (as /proc/PID/cgroup gives it) says. */
void container_of(const char *path, struct container *out);

#endif
