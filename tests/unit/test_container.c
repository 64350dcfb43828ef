/* test_container.c - user/proc/container.c on the cgroup paths container
 * runtimes really make (as /proc/PID/cgroup shows them on cgroup v1 and
 * v2: docker with its cgroupfs and systemd drivers, containerd and cri-o
 * under the kubelet with either driver, every pod QoS class, podman
 * rootful and rootless, systemd-nspawn), and on near misses that must
 * give nothing: a short or upper-case ID, conmon's cgroup, a malformed
 * pod UID, a plain host session. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "proc/container.h"

#define ID  "3f4b8c1d2e5a6f7081920a1b2c3d4e5f60718293a4b5c6d7e8f9012345678abc"
#define UID "0e1a6d2c-4b4f-4f7c-9a55-3c1d2f8e9b10"
#define USC "0e1a6d2c_4b4f_4f7c_9a55_3c1d2f8e9b10"

static const struct {
	const char *path, *id, *runtime, *pod;
} cases[] = {
	/* docker, cgroupfs driver (v1) and systemd driver (v2) */
	{"/docker/" ID, ID, "docker", ""},
	{"/system.slice/docker-" ID ".scope", ID, "docker", ""},
	/* kubelet + containerd, systemd driver, each QoS class */
	{"/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" USC
	 ".slice/cri-containerd-" ID ".scope",
	 ID, "containerd", UID},
	{"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" USC
	 ".slice/cri-containerd-" ID ".scope",
	 ID, "containerd", UID},
	{"/kubepods.slice/kubepods-pod" USC ".slice/cri-containerd-" ID
	 ".scope",
	 ID, "containerd", UID},
	/* kubelet, cgroupfs driver: the runtime is not in the path */
	{"/kubepods/burstable/pod" UID "/" ID, ID, "", UID},
	{"/kubepods/pod" UID "/" ID, ID, "", UID},
	/* cri-o, and its conmon (not the container) */
	{"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" USC
	 ".slice/crio-" ID ".scope",
	 ID, "cri-o", UID},
	{"/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" USC
	 ".slice/crio-conmon-" ID ".scope",
	 "", "", UID},
	/* podman rootful (its own cgroup below), rootless */
	{"/machine.slice/libpod-" ID ".scope/container", ID, "podman", ""},
	{"/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID
	 ".scope",
	 ID, "podman", ""},
	/* systemd-nspawn: the machine name */
	{"/machine.slice/systemd-nspawn@debian-test.service/payload",
	 "debian-test", "systemd-nspawn", ""},
	/* nothing */
	{"/user.slice/user-0.slice/session-1.scope", "", "", ""},
	{"/", "", "", ""},
	{"", "", "", ""},
	{"/docker/"
	 "3F4B8C1D2E5A6F7081920A1B2C3D4E5F60718293A4B5C6D7E8F9012345678ABC",
	 "", "", ""},
	{"/docker/"
	 "3f4b8c1d2e5a6f7081920a1b2c3d4e5f60718293a4b5c6d7e8f9012345678ab",
	 "", "", ""},
	{"/system.slice/docker-" ID ".scopex", "", "", ""},
	{"/kubepods/burstable/pod0e1a6d2c-4b4f-4f7c-9a55-3c1d2f8e9b1g/" ID, ID,
	 "", ""},
	{"/machine.slice/systemd-nspawn@bad/name.service", "", "", ""},
};

static void test_shapes(void **state)
{
	struct container c;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		container_of(cases[i].path, &c);
		if (strcmp(c.id, cases[i].id) ||
		    strcmp(c.runtime, cases[i].runtime) ||
		    strcmp(c.pod_uid, cases[i].pod))
			fail_msg("%s: got id '%s' runtime '%s' pod '%s', want "
				 "'%s' '%s' '%s'",
				 cases[i].path, c.id, c.runtime, c.pod_uid,
				 cases[i].id, cases[i].runtime, cases[i].pod);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
