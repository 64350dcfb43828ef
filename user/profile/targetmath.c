/* targetmath.c - see targetmath.h. */
#include <elf.h>

#include "profile/targetmath.h"

bool snapshot__var_ok(const struct snapshot *s, const struct target *t,
		      enum gh_var i)
{
	return t->vars[i] && !(s->var_err & (1u << i));
}

/* Whether the CPU has FMA and AVX, which math/exp_amd64.s asks at init.
 * An amd64 target runs on an amd64 host only (gobin__open refuses another
 * architecture's), so elsewhere the question does not arise. */
static bool cpu_has_fma(void)
{
#if defined(__x86_64__)
	return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx");
#else
	return false;
#endif
}

enum gomath target__math(const struct target *t, const struct snapshot *s)
{
	bool fma;

	if (elffile__machine(t->go->elf) == EM_AARCH64)
		return GOMATH_ARM64;
	if (snapshot__var_ok(s, t, GH_VAR_USEFMA))
		fma = s->vars[GH_VAR_USEFMA] & 0xff;
	else
		fma = cpu_has_fma();
	return fma ? GOMATH_AMD64_FMA : GOMATH_AMD64_SSE2;
}
