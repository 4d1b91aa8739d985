/* The targets, by name. */
#include <stdio.h>
#include <string.h>

#include "target/target.h"
#include "target/targets.h"

static const struct pm_target *const targets[] = {
	&pm_target_sm80, &pm_target_sm70, &pm_target_sm90a,
};

#define N(a) ((int) (sizeof(a) / sizeof((a)[0])))

const struct pm_target *pm_target_find(const char *name)
{
	for (int i = 0; i < N(targets); ++i)
		if (!strcmp(targets[i]->name, name))
			return targets[i];
	if (!strcmp(name, pm_target_host_c.name))
		return &pm_target_host_c;
	return NULL;
}

const struct pm_target *pm_target_default(void)
{
	return targets[0];
}

const struct pm_target *pm_target_host(void)
{
	return &pm_target_host_c;
}

const struct pm_variant_desc *pm_target_variant(const struct pm_target *t,
	enum pm_variant_role r)
{
	for (int i = 0; i < t->nvariants; ++i)
		if (t->variants[i].role == r)
			return &t->variants[i];
	return NULL;
}

int pm_target_has_macro(const struct pm_target *t, int m, int n, int k)
{
	for (int i = 0; i < t->nmacros; ++i)
		if (t->macros[i].m == m && t->macros[i].n == n &&
		    t->macros[i].k == k)
			return 1;
	return 0;
}

int pm_target_supports(const struct pm_target *t, enum pm_type in,
	enum pm_type out)
{
	(void) t;
	return in == PM_F16 && (out == PM_F16 || out == PM_F32);
}

void pm_target_macro_list(const struct pm_target *t, char *buf, int len)
{
	int off = 0;

	buf[0] = '\0';
	for (int i = 0; i < t->nmacros && off < len; ++i)
		off += snprintf(buf + off, len - off, "%s%dx%dx%d",
			i ? ", " : "", t->macros[i].m, t->macros[i].n,
			t->macros[i].k);
}
