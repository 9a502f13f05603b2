/* rt_profile.c: ir-run --profile.  Every command the run enqueues keeps
 * its event; when the run ends its start and end times (OpenCL
 * profiling) are summed per kernel and per copy kind on each device.
 * The table, sorted by total time, gives calls, total and mean time,
 * GFLOP/s for kernels whose floating-point work the loop nest tells, and
 * GB/s for copies; the last line sets the wall time against each
 * device's busy time, so copies that overlapped compute show. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ocl/rt_impl.h"

/* Floating-point operations of one evaluation of e: +, -, *, / one per
 * lane, fma two, any other float intrinsic (exp, max, ...) one; integer
 * arithmetic, comparisons, selects and loads none.  Expressions are at
 * most IR_MAX_EXPR_DEPTH deep, so recursion is bounded. */
static double
expr_flops(const PExpr *e)
{
	if (!e)
		return 0;
	double lanes = e->dt.lanes ? e->dt.lanes : 1, n = 0;
	bool fl = elem_is_float((ElemKind)e->dt.kind);
	switch (e->kind) {
	case E_BIN:
		n = expr_flops(e->u.ops.a) + expr_flops(e->u.ops.b);
		if (fl && e->op <= OP_DIV)
			n += lanes;
		return n;
	case E_UN:
		return expr_flops(e->u.ops.a);
	case E_SELECT:
		return expr_flops(e->u.ops.a) + expr_flops(e->u.ops.b) + expr_flops(e->u.ops.c);
	case E_CAST:
	case E_BROADCAST:
		return expr_flops(e->u.cast.a);
	case E_LOAD:
		for (uint32_t i = 0; i < e->n; i++)
			n += expr_flops(e->u.load.idx[i].e);
		return n;
	case E_TEX_LOAD:
		return expr_flops(e->u.tex.x) + expr_flops(e->u.tex.y);
	case E_CALL:
		for (uint32_t i = 0; i < e->n; i++)
			n += expr_flops(e->u.call.args[i]);
		if (fl && e->op == I_FMA)
			n += 2 * lanes;
		else if (fl && e->op != I_LANE)
			n += lanes;
		return n;
	}
	return 0;
}

/* The floating-point operations of one launch of kernel k: each
 * statement's, times the trip counts of the loops around it (the
 * kernel's own bound loops cover the whole launch).  Both arms of an if
 * count (an upper bound where a guard skips work).  -1 when a loop's
 * bounds are not constants. */
double
rt_kernel_flops(const PStmt *k)
{
	typedef struct { const PStmt *s; double mult; } Item;
	Item *st = NULL;
	size_t n = 0, cap = 0;
	double total = 0;
	if (k->u.kernel.body.first)
		VEC_PUSH(st, n, cap) = (Item){k->u.kernel.body.first, 1};
	while (n) {
		Item it = st[--n];
		const PStmt *s = it.s;
		if (s->next)
			VEC_PUSH(st, n, cap) = (Item){s->next, it.mult};
		switch (s->kind) {
		case S_FOR: {
			const PExpr *lo = s->u.loop.lo, *hi = s->u.loop.hi;
			if (lo->kind != E_INT || hi->kind != E_INT) {
				free(st);
				return -1;
			}
			double trip = hi->u.i > lo->u.i ? (double)(hi->u.i - lo->u.i) : 0;
			if (s->u.loop.body.first && trip > 0)
				VEC_PUSH(st, n, cap) = (Item){s->u.loop.body.first, it.mult * trip};
			break;
		}
		case S_IF:
			total += it.mult * expr_flops(s->u.cond.cond);
			for (int a = 0; a < 2; a++)
				if (s->u.cond.arms[a].first)
					VEC_PUSH(st, n, cap) = (Item){s->u.cond.arms[a].first, it.mult};
			break;
		case S_LET:
			total += it.mult * expr_flops(s->u.let.val);
			break;
		case S_STORE:
			total += it.mult * expr_flops(s->u.store.val);
			break;
		case S_TEX_STORE:
			total += it.mult * expr_flops(s->u.tex.val);
			break;
		case S_EVAL:
			total += it.mult * expr_flops(s->u.eval);
			break;
		default:
			break;
		}
	}
	free(st);
	return total;
}

static ProfRow *
row_of(OclRt *rt, const ProfEv *p)
{
	for (size_t i = 0; i < rt->nrows; i++)
		if (rt->rows[i].dev == p->dev && rt->rows[i].kernel == p->kernel &&
		    strcmp(rt->rows[i].name, p->name) == 0)
			return &rt->rows[i];
	ProfRow *r = &VEC_PUSH(rt->rows, rt->nrows, rt->caprows);
	*r = (ProfRow){.name = p->name, .dev = p->dev, .kernel = p->kernel};
	return r;
}

void
rt_prof_collect(OclRt *rt)
{
	for (size_t i = 0; i < rt->npev; i++) {
		ProfEv *p = &rt->pev[i];
		cl_ulong t0 = 0, t1 = 0;
		clGetEventProfilingInfo(p->ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
		clGetEventProfilingInfo(p->ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
		clReleaseEvent(p->ev);
		double ms = t1 > t0 ? (double)(t1 - t0) / 1e6 : 0;
		ProfRow *r = row_of(rt, p);
		r->calls++;
		r->ms += ms;
		if (p->kernel) {
			if (p->flops < 0 || r->flops < 0)
				r->flops = -1;
			else
				r->flops += p->flops;
		}
		r->bytes += (double)p->bytes;
		p->dev->busy_ms += ms;
	}
	rt->npev = 0;
}

void
rt_prof_free(OclRt *rt)
{
	for (size_t i = 0; i < rt->npev; i++)
		clReleaseEvent(rt->pev[i].ev);
	free(rt->pev);
	free(rt->rows);
}

static int
cmp_row(const void *a, const void *b)
{
	const ProfRow *x = a, *y = b;
	if (x->ms != y->ms)
		return x->ms > y->ms ? -1 : 1;
	int c = strcmp(x->name, y->name);
	return c ? c : strcmp(x->dev->decl->name, y->dev->decl->name);
}

void
oclrt_profile_print(OclRt *rt, FILE *f)
{
	qsort(rt->rows, rt->nrows, sizeof *rt->rows, cmp_row);
	double all = 0;
	for (size_t i = 0; i < rt->nrows; i++)
		all += rt->rows[i].ms;
	fprintf(f, "ir-run: profile of %u run%s (OpenCL event times; '-': not known)\n",
	        (unsigned)rt->runs, rt->runs == 1 ? "" : "s");
	fprintf(f, "%12s %7s %8s %12s %12s %9s %9s  %-10s %s\n", "total_ms", "share", "calls",
	        "mean_us", "flop/call", "GFLOP/s", "GB/s", "device", "kernel_or_copy");
	for (size_t i = 0; i < rt->nrows; i++) {
		const ProfRow *r = &rt->rows[i];
		char fc[32] = "-", gf[32] = "-", gb[32] = "-", dev[80];
		double s = r->ms / 1e3;
		if (r->kernel && r->flops >= 0 && r->calls)
			snprintf(fc, sizeof fc, "%.0f", r->flops / (double)r->calls);
		if (r->kernel && r->flops >= 0 && s > 0)
			snprintf(gf, sizeof gf, "%.2f", r->flops / s / 1e9);
		if (!r->kernel && s > 0)
			snprintf(gb, sizeof gb, "%.2f", r->bytes / s / 1e9);
		snprintf(dev, sizeof dev, "@%s", r->dev->decl->name);
		fprintf(f, "%12.3f %6.1f%% %8llu %12.3f %12s %9s %9s  %-10s %s%s\n", r->ms,
		        all > 0 ? 100 * r->ms / all : 0.0, (unsigned long long)r->calls,
		        r->calls ? 1e3 * r->ms / (double)r->calls : 0.0, fc, gf, gb, dev,
		        r->kernel ? "@" : "", r->name);
	}
	fprintf(f, "ir-run: wall %.3f ms;", rt->wall_ms);
	double busy = 0;
	for (uint32_t i = 0; i < rt->ndevs; i++) {
		const RtDev *d = &rt->devs[i];
		double k = 0;
		for (size_t j = 0; j < rt->nrows; j++)
			if (rt->rows[j].dev == d && rt->rows[j].kernel)
				k += rt->rows[j].ms;
		fprintf(f, " @%s busy %.3f ms (kernels %.3f, copies %.3f);", d->decl->name, d->busy_ms,
		        k, d->busy_ms - k);
		busy += d->busy_ms;
	}
	fprintf(f, " overlapped %.3f ms\n", busy > rt->wall_ms ? busy - rt->wall_ms : 0.0);
	/* where the host's time goes: making the plan (once), enqueueing a
	 * run's commands, waiting for the devices at its end */
	double runs = rt->runs ? rt->runs : 1;
	fprintf(f, "ir-run: host per run: enqueue %.3f ms, wait %.3f ms, other %.3f ms; plan %.3f "
	        "ms once%s\n", rt->enqueue_ms / runs, rt->wait_ms / runs,
	        (rt->wall_ms - rt->enqueue_ms - rt->wait_ms) / runs, rt->plan_ms,
	        rt->planned ? "" : " (no plan: the interpreter's walk enqueues)");
	for (uint32_t i = 0; i < rt->ndevs; i++) {
		const RtDev *d = &rt->devs[i];
		uint64_t imgs = 0;
		fprintf(f, "ir-run: memory on @%s:", d->decl->name);
		for (size_t j = 0; j < rt->nplan; j++) {
			const PlanMem *p = &rt->plan[j];
			if (p->dev != d)
				continue;
			if (p->pool)
				fprintf(f, " pool @%s %llu bytes, %llu used;", p->pool,
				        (unsigned long long)p->size, (unsigned long long)p->used);
			if (p->pool && p->unaligned)
				fprintf(f, " %u buffers planned in @%s at offsets not a multiple of %u bytes "
				        "in memory of their own;", (unsigned)p->unaligned, p->pool,
				        (unsigned)d->base_align);
			else
				imgs += p->size;
		}
		if (imgs)
			fprintf(f, " planned images %llu bytes;", (unsigned long long)imgs);
		fprintf(f, " other buffers and images peak %llu bytes\n", (unsigned long long)d->peak);
		rt_pool_say(d, f);
		rt_const_say(d, f);
	}
}

void
oclrt_profile_reset(OclRt *rt)
{
	rt->nrows = 0;
	rt->runs = 0;
	rt->wall_ms = 0;
	rt->enqueue_ms = rt->wait_ms = 0;
	for (uint32_t i = 0; i < rt->ndevs; i++)
		rt->devs[i].busy_ms = 0;
}
