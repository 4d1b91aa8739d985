#include <stdlib.h>
/* Dependences and the `check` report. */
#include <isl/flow.h>
#include <isl/map.h>
#include <isl/printer.h>
#include <isl/schedule.h>

#include "poly/poly.h"

/* Flow dependences from isl's dataflow analysis (reads' last writers),
 * false dependences (WAR and WAW) as memory-based relations ordered by the
 * initial schedule. */
isl_stat pm_scop_compute_deps(struct pm_scop *scop)
{
	isl_union_access_info *ai;
	isl_union_flow *flow;
	isl_union_map *sched, *lt, *war, *waw;

	ai = isl_union_access_info_from_sink(isl_union_map_copy(scop->reads));
	ai = isl_union_access_info_set_must_source(ai,
		isl_union_map_copy(scop->writes));
	ai = isl_union_access_info_set_schedule(ai,
		isl_schedule_copy(scop->schedule));
	flow = isl_union_access_info_compute_flow(ai);
	scop->dep_flow = isl_union_flow_get_may_dependence(flow);
	isl_union_flow_free(flow);

	sched = isl_schedule_get_map(scop->schedule);
	lt = isl_union_map_lex_lt_union_map(isl_union_map_copy(sched), sched);
	war = isl_union_map_apply_range(isl_union_map_copy(scop->reads),
		isl_union_map_reverse(isl_union_map_copy(scop->writes)));
	waw = isl_union_map_apply_range(isl_union_map_copy(scop->writes),
		isl_union_map_reverse(isl_union_map_copy(scop->writes)));
	scop->dep_false = isl_union_map_intersect(
		isl_union_map_union(war, waw), lt);
	scop->dep_false = isl_union_map_coalesce(scop->dep_false);
	if (!scop->dep_flow || !scop->dep_false)
		return isl_stat_error;
	return isl_stat_ok;
}

__isl_give isl_union_map *pm_scop_deps(const struct pm_scop *scop)
{
	return isl_union_map_union(isl_union_map_copy(scop->dep_flow),
		isl_union_map_copy(scop->dep_false));
}

static void print_isl(FILE *out, const char *title, const char *str)
{
	fprintf(out, "%s:\n  %s\n", title, str ? str : "(error)");
}

void pm_scop_print(FILE *out, const struct pm_scop *scop)
{
	char *s;
	isl_printer *p;

	fprintf(out, "# spec\n");
	pm_spec_print(out, scop->spec);
	fprintf(out, "\n# polyhedral model\n");
	s = isl_set_to_str(scop->context);
	print_isl(out, "context", s);
	free(s);
	s = isl_union_set_to_str(scop->domain);
	print_isl(out, "domain", s);
	free(s);
	{
		const struct {
			const char *title;
			isl_union_map *map;
		} maps[] = {
			{ "reads", scop->reads }, { "writes", scop->writes },
			{ "flow dependences", scop->dep_flow },
			{ "false dependences", scop->dep_false },
		};

		for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); ++i) {
			s = isl_union_map_to_str(maps[i].map);
			print_isl(out, maps[i].title, s);
			free(s);
		}
	}
	fprintf(out, "initial schedule:\n");
	p = isl_printer_to_file(scop->ctx, out);
	p = isl_printer_set_yaml_style(p, ISL_YAML_STYLE_BLOCK);
	p = isl_printer_print_schedule(p, scop->schedule);
	isl_printer_free(p);
	fprintf(out, "\n");
}
