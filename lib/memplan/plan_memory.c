/* plan_memory.c: ir-plan-memory's pass: @main's buffers (lib/memplan/
 * bufs.h) get pools and offsets from the planner (lib/memplan/memplan.h),
 * the images in texture scopes are shared whole across disjoint
 * lifetimes, with equal element type, device and scope, best fit per
 * axis (TVM's TokenAllocator2D), and the places are written beside the
 * nodes (places.c).  The verifier checks them (lib/memplan/check.h).
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "memplan/bufs.h"
#include "memplan/plan_memory.h"

/* ------------------------------------------------------------ pools */

typedef struct {
	Sym name;
	Pool *decl;           /* NULL: implicit */
	Sym dev;              /* implicit: its device */
	int64_t size, align;  /* size -1: unbounded */
	bool constant;
} PInfo;

typedef struct {
	PInfo *p;
	uint32_t n, cap;
} Pools;

static bool
pool_is_constant(const Pool *pl)
{
	const Attr *a = attr_get(&pl->attrs, "kind");
	return a && a->kind == AT_STR && !strcmp(a->u.s, "constant");
}

static void
pools_init(Pools *ps, Module *m)
{
	memset(ps, 0, sizeof *ps);
	for (Pool *pl = m->pools; pl; pl = pl->next) {
		const Attr *sz = attr_get(&pl->attrs, "size");
		VEC_PUSH(ps->p, ps->n, ps->cap) = (PInfo){
			pl->name, pl, NULL, sz && sz->kind == AT_INT ? sz->u.i : -1, mbuf_pool_align(pl),
			pool_is_constant(pl)};
	}
}

/* The implicit pool of dev for constants or not, made on first use. */
static uint32_t
pool_implicit(Pools *ps, Module *m, Sym dev, bool constant)
{
	for (uint32_t k = 0; k < ps->n; k++)
		if (!ps->p[k].decl && ps->p[k].dev == dev && ps->p[k].constant == constant)
			return k;
	char buf[300];
	snprintf(buf, sizeof buf, "%s%s%s", constant ? "constants" : "workspace", dev ? "." : "",
	         dev ? dev : "");
	Sym name = sym_intern_cstr(m, buf);
	for (int i = 1; sym_global(name, &(int){0}) || module_pool(m, name); i++) {
		char b2[320];
		snprintf(b2, sizeof b2, "%s.%d", buf, i);
		name = sym_intern_cstr(m, b2);
	}
	VEC_PUSH(ps->p, ps->n, ps->cap) = (PInfo){name, NULL, dev, -1, 16, constant};
	return ps->n - 1;
}

/* Declares an implicit pool with the size the plan gave it. */
static void
declare_pool(Module *m, const PInfo *pi, int64_t used)
{
	Pool *pl = arena_alloc(m->arena, sizeof *pl);
	pl->name = pi->name;
	uint32_t n = 0;
	AttrEntry *e = arena_alloc(m->arena, 3 * sizeof *e);
	if (pi->dev) {
		Attr *l = arena_alloc(m->arena, sizeof *l);
		l->kind = AT_SYM;
		l->u.sym = pi->dev;
		e[n].key = sym_intern_cstr(m, "devices");
		e[n].val.kind = AT_LIST;
		e[n].val.n = 1;
		e[n++].val.u.list = l;
	}
	e[n].key = sym_intern_cstr(m, "kind");
	e[n].val.kind = AT_STR;
	e[n].val.u.s = pi->constant ? "constant" : "workspace";
	e[n].val.n = (uint32_t)strlen(e[n].val.u.s);
	n++;
	e[n].key = sym_intern_cstr(m, "size");
	e[n].val.kind = AT_INT;
	e[n++].val.u.i = used > 0 ? used : 1;
	pl->attrs = (AttrMap){n, e};
	/* Located where its device is declared (else @main's first
	 * function): in a module read with loc(...), a line printed without
	 * one would get its place in the printed text when read back, and
	 * print differently (fuzz_memplan found it). */
	const Device *d = pi->dev ? module_device(m, pi->dev) : NULL;
	if (d)
		pl->loc = d->loc;
	else if (m->funcs)
		pl->loc = m->funcs->loc;
	sym_set_global(pl->name, GK_POOL, pl);
	if (m->pools_last)
		m->pools_last->next = pl;
	else
		m->pools = pl;
	m->pools_last = pl;
}

/* b's candidate pools into out (at most cap); false after an error. */
static bool
candidates(MBufs *x, Pools *ps, const MBuf *b, uint32_t *out, uint32_t *n, uint32_t cap)
{
	Module *m = x->m;
	*n = 0;
	const char *pin = mbuf_pinned_pool(b->scope);
	if (pin || b->cands) {
		uint32_t cnt = pin ? 1 : b->cands->n;
		for (uint32_t i = 0; i < cnt && *n < cap; i++) {
			Sym name;
			Loc at;
			if (pin) {
				name = sym_intern_cstr(m, pin);
				at = b->loc;
			} else {
				if (b->cands->u.list[i].kind != AT_SYM)
					continue;
				name = b->cands->u.list[i].u.sym;
				at = b->cands->u.list[i].loc;
			}
			uint32_t k = 0;
			while (k < ps->n && !(ps->p[k].decl && ps->p[k].name == name))
				k++;
			if (k == ps->n) {
				if (pin) {
					error_at(m->ctx, at, "scope '%s' of '%%%s' names '@%s', which is not a declared pool",
					         b->scope, b->name, name);
					mbuf_note_via(m, b);
				} else
					error_at(m->ctx, at, "'candidate_pools' names '@%s', which is not a declared pool",
					         name);
				return false;
			}
			if (!mbuf_pool_reaches(ps->p[k].decl, b->dev)) {
				error_at(m->ctx, at, "pool '@%s' is not accessible from device '@%s' of '%%%s'",
				         name, b->dev, b->name);
				if (pin)
					mbuf_note_via(m, b);
				note_at(m->ctx, ps->p[k].decl->loc, "'@%s' is declared here", name);
				return false;
			}
			out[(*n)++] = k;
		}
		return true;
	}
	bool constant = b->kind == MB_CONST;
	for (uint32_t k = 0; k < ps->n && *n + 1 < cap; k++)
		if (ps->p[k].decl && ps->p[k].constant == constant && mbuf_pool_reaches(ps->p[k].decl, b->dev))
			out[(*n)++] = k;
	out[(*n)++] = pool_implicit(ps, m, b->dev, constant);
	return true;
}

/* ------------------------------------------------------------ images */

typedef struct {
	Sym dev, scope;
	ElemKind ek;
	int64_t w, h;
	uint32_t last_end;
	bool used;
} Image;

/* Per-axis best fit among free images of the same kind: the least area
 * added by growing, then the least area left over, then the lowest id. */
static void
plan_images(MBufs *x, uint32_t *image_of, Image **imgs, uint32_t *nimg)
{
	uint32_t *ord = NULL;
	size_t n = 0, cap = 0, ci = 0;
	for (uint32_t i = 0; i < x->nb; i++)
		if (x->b[i].kind == MB_IMAGE)
			VEC_PUSH(ord, n, cap) = i;
	mbuf_sort_by_start(x, ord, n);
	Image *im = NULL;
	uint32_t ni = 0;
	for (size_t r = 0; r < n; r++) {
		const MBuf *b = &x->b[ord[r]];
		uint32_t best = UINT32_MAX;
		int64_t best_add = 0, best_left = 0;
		for (uint32_t k = 0; k < ni; k++) {
			Image *g = &im[k];
			if (g->dev != b->dev || g->scope != b->scope || g->ek != b->ek || g->last_end >= b->start)
				continue;
			int64_t w = g->w > b->wh[0] ? g->w : b->wh[0];
			int64_t h = g->h > b->wh[1] ? g->h : b->wh[1];
			int64_t add = w * h - g->w * g->h, left = w * h - b->wh[0] * b->wh[1];
			if (best == UINT32_MAX || add < best_add || (add == best_add && left < best_left)) {
				best = k;
				best_add = add;
				best_left = left;
			}
		}
		if (best == UINT32_MAX) {
			VEC_PUSH(im, ni, ci) = (Image){b->dev, b->scope, b->ek, 0, 0, 0, false};
			best = ni - 1;
		}
		Image *g = &im[best];
		if (b->wh[0] > g->w)
			g->w = b->wh[0];
		if (b->wh[1] > g->h)
			g->h = b->wh[1];
		g->last_end = b->end;
		image_of[ord[r]] = best;
	}
	free(ord);
	*imgs = im;
	*nimg = ni;
}

/* ------------------------------------------------------------ errors */

/* Buffer f fit none of its pools: report its first pool, the bytes alive
 * at the peak within f's lifetime among the buffers that prefer it. */
static void
report_full(MBufs *x, const Pools *ps, const MpProblem *pr, uint32_t f)
{
	uint32_t k = pr->buf[f].pools[0];
	const PInfo *pi = &ps->p[k];
	int64_t best = -1;
	uint32_t at = pr->buf[f].start;
	for (uint32_t t = pr->buf[f].start; t <= pr->buf[f].end; t++) {
		int64_t live = 0;
		for (uint32_t i = 0; i < pr->nbuf; i++)
			if (pr->buf[i].pools[0] == k && pr->buf[i].start <= t && t <= pr->buf[i].end)
				live += pr->buf[i].size;
		if (live > best) {
			best = live;
			at = t;
		}
		if (t == UINT32_MAX)
			break;
	}
	const MBuf *fb = (const MBuf *)pr->buf[f].name;  /* see plan_memory: name is the MBuf */
	error_at(x->m->ctx, fb->loc,
	         "pool '@%s' of %lld bytes is too small: %lld bytes are live in it at once, "
	         "'%%%s' (%lld bytes) among them",
	         pi->name, (long long)pi->size, (long long)best, fb->name, (long long)fb->bytes);
	for (uint32_t i = 0; i < pr->nbuf; i++)
		if (i != f && pr->buf[i].pools[0] == k && pr->buf[i].start <= at && at <= pr->buf[i].end) {
			const MBuf *b = (const MBuf *)pr->buf[i].name;
			note_at(x->m->ctx, b->loc, "'%%%s' (%lld bytes) is live there", b->name,
			        (long long)b->bytes);
		}
	if (pi->decl)
		note_at(x->m->ctx, pi->decl->loc, "'@%s' is declared here", pi->name);
}

/* ------------------------------------------------------------ the pass */

/* The planner's problem: the buffers that go into pools, each with its
 * candidate pools, and the pools. */
typedef struct {
	uint32_t *cand;            /* every buffer's candidates, one list after another */
	size_t ncand, ccand;
	uint32_t *cfirst, *ccount; /* by buffer: its list in cand; ccount 0: no pool */
	MpBuf *mb;                 /* MpBuf j is buffer map[j] */
	uint32_t *map, n;
	MpPool *mp;
	MpProblem pr;
	MpAlgo chosen;
} Plan;

/* Each buffer's candidate pools (pools may be added: the implicit ones);
 * false after reporting. */
static bool
gather_candidates(MBufs *x, Pools *ps, bool io, Plan *pl)
{
	bool ok = true;
	pl->cfirst = xcalloc((size_t)x->nb + 1, sizeof *pl->cfirst);
	pl->ccount = xcalloc((size_t)x->nb + 1, sizeof *pl->ccount);
	for (uint32_t i = 0; i < x->nb; i++) {
		MBuf *b = &x->b[i];
		if (b->kind == MB_IMAGE || (b->io && !io))
			continue;
		uint32_t tmp[256], c = 0;
		if (!candidates(x, ps, b, tmp, &c, 256)) {
			ok = false;
			continue;
		}
		pl->cfirst[i] = (uint32_t)pl->ncand;
		pl->ccount[i] = c;
		for (uint32_t k = 0; k < c; k++)
			VEC_PUSH(pl->cand, pl->ncand, pl->ccand) = tmp[k];
	}
	return ok;
}

/* The MpPools, and the MpBufs of the buffers with candidates (each
 * aligned to the most any of its pools asks), named by their MBuf. */
static void
build_problem(MBufs *x, const Pools *ps, Plan *pl)
{
	pl->mb = xcalloc((size_t)x->nb + 1, sizeof *pl->mb);
	pl->map = xcalloc((size_t)x->nb + 1, sizeof *pl->map);
	pl->mp = xcalloc((size_t)ps->n + 1, sizeof *pl->mp);
	for (uint32_t k = 0; k < ps->n; k++)
		pl->mp[k] = (MpPool){ps->p[k].name, ps->p[k].size};
	for (uint32_t i = 0; i < x->nb; i++) {
		MBuf *b = &x->b[i];
		if (!pl->ccount[i])
			continue;
		const uint32_t *c = pl->cand + pl->cfirst[i];
		int64_t al = 1;
		for (uint32_t k = 0; k < pl->ccount[i]; k++)
			if (ps->p[c[k]].align > al)
				al = ps->p[c[k]].align;
		pl->mb[pl->n] = (MpBuf){.name = (const char *)b, .size = b->bytes, .align = al,
		                        .start = b->start, .end = b->end,
		                        .pools = pl->cand + pl->cfirst[i], .npools = pl->ccount[i]};
		pl->map[pl->n++] = i;
	}
}

/* Plans the pools with algo; false after reporting a buffer that fits
 * none of its pools. */
static bool
solve(MBufs *x, const Pools *ps, Plan *pl, MpAlgo algo)
{
	/* TVM breaks ties by name: the MpBufs take their buffers' names for
	 * planning, and their MBufs back after (report_full reads them). */
	uint32_t n = pl->n, fail = 0;
	const char **names = xcalloc((size_t)n + 1, sizeof *names);
	for (uint32_t j = 0; j < n; j++)
		names[j] = x->b[pl->map[j]].name;
	for (uint32_t j = 0; j < n; j++)
		pl->mb[j].name = names[j];
	pl->chosen = algo;
	bool ok = mp_plan(&pl->pr, algo, &pl->chosen, &fail);
	for (uint32_t j = 0; j < n; j++)
		pl->mb[j].name = (const char *)&x->b[pl->map[j]];
	free(names);
	if (!ok)
		report_full(x, ps, &pl->pr, fail);
	return ok;
}

/* Every node's places, where all of its buffers have one: a pool and an
 * offset, or an image. */
static void
write_places(Module *m, const MBufs *x, const Pools *ps, const Plan *pl, const uint32_t *image_of,
             const Image *im)
{
	Place *place = xcalloc((size_t)x->nb + 1, sizeof *place);
	bool *planned = xcalloc((size_t)x->nb + 1, sizeof *planned);
	for (uint32_t j = 0; j < pl->n; j++) {
		uint32_t i = pl->map[j];
		place[i] = (Place){ps->p[pl->mb[j].pool].name, pl->mb[j].offset, {0, 0}, x->b[i].loc};
		planned[i] = true;
	}
	for (uint32_t i = 0; i < x->nb; i++)
		if (x->b[i].kind == MB_IMAGE) {
			const Image *g = &im[image_of[i]];
			place[i] = (Place){NULL, image_of[i], {g->w, g->h}, x->b[i].loc};
			planned[i] = true;
		}
	/* one node's buffers are consecutive */
	for (uint32_t i = 0; i < x->nb;) {
		uint32_t e = i + 1;
		while (e < x->nb && x->b[e].node == x->b[i].node)
			e++;
		bool all = true;
		for (uint32_t k = i; k < e; k++)
			all = all && planned[k];
		if (all)
			module_set_places(m, x->b[i].node, e - i, place + i);
		i = e;
	}
	free(place);
	free(planned);
}

/* Declares the implicit pools (from ndecl on) that some buffer got. */
static void
declare_used_pools(Module *m, const Pools *ps, uint32_t ndecl, const Plan *pl)
{
	for (uint32_t k = ndecl; k < ps->n; k++) {
		int64_t used = mp_pool_used(&pl->pr, k);
		bool any = false;
		for (uint32_t j = 0; j < pl->n; j++)
			any = any || pl->mb[j].pool == k;
		if (any)
			declare_pool(m, &ps->p[k], used);
	}
}

/* --stats: per pool and per image, and the algorithm kept. */
static void
print_stats(FILE *f, const MBufs *x, const Pools *ps, const Plan *pl, const uint32_t *image_of,
            const Image *im, uint32_t ni)
{
	for (uint32_t k = 0; k < ps->n; k++) {
		int64_t sum = 0;
		uint32_t cnt = 0;
		for (uint32_t j = 0; j < pl->n; j++)
			if (pl->mb[j].pool == k) {
				sum += pl->mb[j].size;
				cnt++;
			}
		if (!cnt)
			continue;
		fprintf(f, "pool @%s: %u buffers, planned %lld bytes, sum %lld bytes, lower bound %lld bytes\n",
		        ps->p[k].name, cnt, (long long)mp_pool_used(&pl->pr, k), (long long)sum,
		        (long long)mp_pool_peak(&pl->pr, k, NULL));
	}
	for (uint32_t g = 0; g < ni; g++) {
		uint32_t users = 0;
		for (uint32_t i = 0; i < x->nb; i++)
			users += x->b[i].kind == MB_IMAGE && image_of[i] == g;
		fprintf(f, "image %u: %lldx%lld texels, %u buffers\n", g, (long long)im[g].w,
		        (long long)im[g].h, users);
	}
	fprintf(f, "algorithm: %s\n", mp_algo_name(pl->chosen));
}

bool
plan_memory(Module *m, const MemPlanOpts *o)
{
	MBufs x;
	if (!mbuf_extract(&x, m, o->io)) {
		error_at(m->ctx, (Loc){0}, "no function @main");
		return false;
	}
	Pools ps;
	pools_init(&ps, m);
	uint32_t ndecl = ps.n;
	Plan pl = {0};
	bool ok = gather_candidates(&x, &ps, o->io, &pl);
	if (ok)
		build_problem(&x, &ps, &pl);
	pl.pr = (MpProblem){pl.mb, pl.n, pl.mp, ps.n, true};
	if (ok)
		ok = solve(&x, &ps, &pl, o->algo);
	if (ok) {
		uint32_t *image_of = xcalloc((size_t)x.nb + 1, sizeof *image_of);
		Image *im = NULL;
		uint32_t ni = 0;
		plan_images(&x, image_of, &im, &ni);
		write_places(m, &x, &ps, &pl, image_of, im);
		declare_used_pools(m, &ps, ndecl, &pl);
		if (o->stats)
			print_stats(o->stats, &x, &ps, &pl, image_of, im, ni);
		free(im);
		free(image_of);
	}
	free(pl.cfirst);
	free(pl.ccount);
	free(pl.cand);
	free(pl.mp);
	free(pl.mb);
	free(pl.map);
	free(ps.p);
	mbuf_free(&x);
	return ok;
}
