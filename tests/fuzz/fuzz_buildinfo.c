/* fuzz_buildinfo.c - the .go.buildinfo section (user/gobin/buildinfo.c):
 * the input is the section's bytes. The version string it yields goes on
 * to layout__for, which parses it, as gobin__open does. */
#include "fuzz.h"

#include "gobin/buildinfo.h"
#include "gobin/layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char version[64], small[8];
	struct gh_err err;

	/* A buffer too small for a real version takes the length check. */
	buildinfo_version(data, size, small, sizeof(small), &err);
	if (buildinfo_version(data, size, version, sizeof(version), &err) == 0)
		layout__for(version, &err);
	return 0;
}
