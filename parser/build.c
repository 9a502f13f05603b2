/* build.c: turns grammar actions into a Module.
 *
 * The builder owns the stack of open blocks (see grammar.y) and the table
 * of local names of the function or prim being read, which enforces
 * "defined before use, unique per function, an if arm's names stay in the
 * arm".  Everything else (types, placements, callees' signatures) is the
 * verifier's job, run once the whole module is read.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "grammar.h"
#include "nameset.h"
#include "ops/ops.h"
#include "suggest.h"
#include "walk.h"

enum { CX_FN, CX_ARM, CX_PRIM, CX_PBLOCK, CX_SKIP, CX_PROG };

/* The parser's own Value flag (see VF_PASS_A): the name is out of scope. */
enum { VF_DEAD = VF_PASS_A };

struct Cx {
	uint8_t kind;
	uint8_t arm;          /* CX_ARM / if in CX_PBLOCK: 0 then, 1 else */
	bool done;            /* CX_FN: return seen; CX_ARM: yield seen */
	Loc loc;              /* the line that opened the block */
	uint32_t defs_mark;   /* p->defs height when the block opened */
	Block *blk;           /* CX_FN, CX_ARM */
	PBlock *pblk;         /* CX_PRIM, CX_PBLOCK */
	Value *ifv;           /* CX_ARM: the if binding */
	PStmt *ps;            /* CX_PBLOCK: the for / if / kernel */
	Program *prog;        /* CX_PROG */
	Func *fn;
	Prim *prim;
};

/* The defined objects in a map.h Map under their names' hashes; the name
 * is read from the object (a million bindings: 24 MB). */
struct NameTab {
	Map m;
	bool prim;            /* entries are PVar*, else Value* */
};

/* ------------------------------------------------------------ utilities */

void
parser_error(Parser *p, Loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag(p->ctx, SEV_ERROR, loc, fmt, ap);
	va_end(ap);
}

#define note(p, loc, ...) diag((p)->ctx, SEV_NOTE, (loc), __VA_ARGS__)

uint32_t
scratch_mark(Parser *p)
{
	return p->scratch.n;
}

void
scratch_push(Parser *p, void *x)
{
	Scratch *s = &p->scratch;
	VEC_PUSH(s->v, s->n, s->cap) = x;
}

uint32_t
scratch_count(Parser *p, uint32_t mark)
{
	return p->scratch.n - mark;
}

void **
scratch_items(Parser *p, uint32_t mark)
{
	return p->scratch.v ? p->scratch.v + mark : NULL;
}

/* Copies the list that starts at mark into dst (memcpy may not be given
 * NULL, even for nothing). */
static void
scratch_copy(Parser *p, uint32_t mark, void *dst)
{
	uint32_t n = scratch_count(p, mark);
	if (n)
		memcpy(dst, p->scratch.v + mark, n * sizeof(void *));
}

void
scratch_pop(Parser *p, uint32_t mark)
{
	p->scratch.n = mark;
}

static const char *
copy_name(Parser *p, Slice s)
{
	return module_name(p->m, s.s, s.n);
}

static Sym
intern(Parser *p, Slice s)
{
	return sym_intern(p->m, s.s, s.n);
}

static Cx *
top(Parser *p)
{
	return p->ncx ? &p->cx[p->ncx - 1] : NULL;
}

static Cx *
push_cx(Parser *p, int kind, Loc loc)
{
	Cx *c = &VEC_PUSH(p->cx, p->ncx, p->capcx);
	memset(c, 0, sizeof *c);
	c->kind = (uint8_t)kind;
	c->loc = loc;
	c->defs_mark = (uint32_t)p->defs.n;
	return c;
}

/* Where a trailing loc(...) of the current line goes. */
static void
line_target(Parser *p, Loc *l)
{
	p->line_loc = l;
}

/* ---------------------------------------------------------- name table */

static const char *
obj_name(const NameTab *t, void *o)
{
	return t->prim ? ((PVar *)o)->name : ((Value *)o)->name;
}

static void names_close(Parser *p);

/* A function or prim opened inside another (an error already reported)
 * replaces the table: names are per definition. */
static void
names_open(Parser *p, bool prim)
{
	names_close(p);
	p->names = xcalloc(1, sizeof *p->names);
	p->names->prim = prim;
	map_reserve(&p->names->m, 48);
}

static void
names_close(Parser *p)
{
	if (!p->names)
		return;
	/* The out-of-scope marks are the parser's scratch: gone with the
	 * table, as the verifier checks. */
	for (size_t i = 0; i < p->dead.n; i++) {
		if (p->names->prim)
			((PVar *)p->dead.v[i])->dead = 0;
		else
			((Value *)p->dead.v[i])->flags &= (uint16_t)~VF_DEAD;
	}
	p->dead.n = 0;
	map_free(&p->names->m);
	free(p->names);
	p->names = NULL;
	p->defs.n = 0;
}

static void *
names_find(Parser *p, const char *s, size_t n)
{
	NameTab *t = p->names;
	if (!t)
		return NULL;
	MapProbe it;
	for (void *o = map_first(&t->m, name_hash(s, n), &it); o; o = map_next(&it)) {
		const char *on = obj_name(t, o);
		if (memcmp(on, s, n) == 0 && on[n] == 0)
			return o;
	}
	return NULL;
}

static Loc
obj_loc(const NameTab *t, void *o)
{
	return t->prim ? ((PVar *)o)->loc : ((Value *)o)->loc;
}

/* Defines a local; false (after an error) if the name is taken. */
static bool
define(Parser *p, void *o, Loc at)
{
	NameTab *t = p->names;
	if (!t)
		return false;
	const char *s = obj_name(t, o);
	void *old = names_find(p, s, strlen(s));
	if (old) {
		parser_error(p, at, "redefinition of '%%%s'", s);
		note(p, obj_loc(t, old), "previous definition of '%%%s' is here", s);
		return false;
	}
	map_add(&t->m, name_hash(s, strlen(s)), o);
	/* Names at the top of a function never go out of scope, so only
	 * nested ones are remembered for kill_defs. */
	if (p->ncx > 1)
		ptrvec_push(&p->defs, o);
	return true;
}

/* Names defined since mark go out of scope: later uses are errors. */
static void
kill_defs(Parser *p, uint32_t mark)
{
	/* After errors a nested definition may have replaced the table (see
	 * names_open) and emptied defs: then there is nothing to kill. */
	if (!p->names || p->defs.n <= mark)
		return;
	for (size_t i = mark; i < p->defs.n; i++) {
		if (p->names->prim)
			((PVar *)p->defs.v[i])->dead = 1;
		else
			((Value *)p->defs.v[i])->flags |= VF_DEAD;
		ptrvec_push(&p->dead, p->defs.v[i]);
	}
	p->defs.n = mark;
}

static void *
lookup(Parser *p, Slice name, Loc at)
{
	void *o = names_find(p, name.s, name.n);
	if (!o) {
		parser_error(p, at, "use of undefined value '%%%.*s'", (int)name.n, name.s);
		return NULL;
	}
	bool dead = p->names->prim ? ((PVar *)o)->dead : (((Value *)o)->flags & VF_DEAD) != 0;
	if (dead) {
		parser_error(p, at, "'%%%.*s' is not visible here", (int)name.n, name.s);
		note(p, obj_loc(p->names, o), "it is defined in a block that has ended");
		return NULL;
	}
	return o;
}

/* --------------------------------------------------------------- globals */

static bool
define_global(Parser *p, Sym name, int kind, void *obj, Loc at)
{
	int old;
	if (sym_global(name, &old)) {
		parser_error(p, at, "redefinition of '@%s'", name);
		switch (old) {
		case GK_FUNC: note(p, ((Func *)sym_global(name, NULL))->loc, "previous definition is here"); break;
		case GK_PRIM: note(p, ((Prim *)sym_global(name, NULL))->loc, "previous definition is here"); break;
		case GK_DEVICE: note(p, ((Device *)sym_global(name, NULL))->loc, "previous definition is here"); break;
		case GK_POOL: note(p, ((Pool *)sym_global(name, NULL))->loc, "previous definition is here"); break;
		}
		return false;
	}
	sym_set_global(name, kind, obj);
	return true;
}

static bool
at_top_level(Parser *p, Loc at, const char *what)
{
	if (p->ncx == 0)
		return true;
	parser_error(p, at, "%s inside a block", what);
	note(p, top(p)->loc, "the block opened here is not closed");
	return false;
}

/* ------------------------------------------------------- error recovery */

static void append(Block *b, Value *v);

/* Errors reported on the line being read. */
static int
line_errors(const Parser *p)
{
	return p->ctx->nerrors - p->line_err_mark;
}

/* A binding on a line with an error is poisoned rather than the whole
 * function: the verifier skips what depends on it and checks the rest. */
static void
poison_binding(Parser *p, Value *v)
{
	int n = line_errors(p);
	if (n <= 0)
		return;
	v->flags |= VF_ERROR;
	p->def_line_errors += n;
}

/* A function or prim header starts a definition; its own line counts. */
static void
def_begin(Parser *p)
{
	p->def_err_mark = p->line_err_mark;
	p->def_line_errors = 0;
}

/* The definition of c ends: an error in it that is not a poisoned
 * binding's (a block left open, a missing return or else, a header, any
 * error in a prim) leaves it unchecked by the verifier as a whole. */
static void
def_end(Parser *p, const Cx *c)
{
	int n = p->ctx->nerrors - p->def_err_mark - (c->kind == CX_FN ? p->def_line_errors : 0);
	if (n <= 0)
		return;
	if (c->kind == CX_FN)
		c->fn->flags |= VF_ERROR;
	else if (c->kind == CX_PRIM)
		c->prim->flags |= VF_ERROR;
}

/* What a line with a syntax error meant to define stays defined, as a
 * poisoned placeholder, so its uses are not reported again: a binding
 * `%x = ...` in a function body, or a global `device @d`, `pool @p`,
 * `fn @f`, `prim @k` at the top level. */
static void
define_placeholder(Parser *p)
{
	Cx *c = top(p);
	if (p->first_tok == T_LOCAL && p->first_local.s && c && (c->kind == CX_FN || c->kind == CX_ARM) &&
	    !c->done && p->names && !p->names->prim &&
	    !names_find(p, p->first_local.s, p->first_local.n)) {
		Value *v = value_new(p->m, VK_BIND, 0);
		v->form = B_TUPLE;
		v->name = copy_name(p, p->first_local);
		v->loc = p->first_local_loc;
		append(c->blk, v);
		define(p, v, v->loc);
		poison_binding(p, v);
		return;
	}
	if (c || !p->second_global.s)
		return;
	Sym name = intern(p, p->second_global);
	int kind;
	if (sym_global(name, &kind))
		return;
	Loc at = p->second_global_loc;
	switch (p->first_tok) {
	case T_DEVICE: {
		Device *d = arena_alloc(p->m->arena, sizeof *d);
		d->name = name;
		d->loc = at;
		sym_set_global(name, GK_DEVICE, d);
		break;
	}
	case T_POOL: {
		Pool *pl = arena_alloc(p->m->arena, sizeof *pl);
		pl->name = name;
		pl->loc = at;
		sym_set_global(name, GK_POOL, pl);
		break;
	}
	case T_FN: {
		Func *f = arena_alloc(p->m->arena, sizeof *f);
		f->name = name;
		f->loc = at;
		f->params = arena_alloc(p->m->arena, 1);
		f->flags = VF_ERROR;
		sym_set_global(name, GK_FUNC, f);
		break;
	}
	case T_PRIM: {
		Prim *pr = arena_alloc(p->m->arena, sizeof *pr);
		pr->name = name;
		pr->loc = at;
		pr->params = arena_alloc(p->m->arena, 1);
		pr->flags = VF_ERROR;
		sym_set_global(name, GK_PRIM, pr);
		break;
	}
	}
}

/* ----------------------------------------------------------------- lines */

void
b_end_line(Parser *p)
{
	if (p->has_pending_loc && p->line_loc)
		*p->line_loc = p->pending_loc;
	p->has_pending_loc = false;
	p->line_loc = NULL;
}

/* A line with a syntax error still opens or closes a block if it looks
 * like it does, so one typo does not misplace every later `}`. */
void
b_recover(Parser *p)
{
	p->nplaces = 0;
	p->has_pending_loc = false;
	p->line_loc = NULL;
	bool closes = p->first_tok == '}';
	bool opens = p->line_last_tok == '{';
	if (!closes)
		define_placeholder(p);
	if (closes && !opens && p->ncx > 0) {
		Cx *c = top(p);
		if (c->kind == CX_FN || c->kind == CX_PRIM) {
			def_end(p, c);
			names_close(p);
		}
		p->ncx--;
	} else if (opens && !closes) {
		push_cx(p, CX_SKIP, (Loc){0});
	}
}

void
b_loc(Parser *p, StrTok file, IntTok line, Loc lloc, IntTok col, Loc cloc)
{
	if (line.overflow || line.mag == 0 || line.mag > UINT32_MAX) {
		parser_error(p, lloc, "line number out of range");
		return;
	}
	if (col.overflow || col.mag == 0 || col.mag > UINT32_MAX) {
		parser_error(p, cloc, "column number out of range");
		return;
	}
	Loc l = {(uint32_t)line.mag, (uint32_t)col.mag, src_by_name(p->ctx, file.s, file.n)};
	p->m->has_locs = true;
	/* A parameter's loc(...) is read before its line ends: set directly. */
	p->pending_loc = l;
	p->has_pending_loc = true;
}

/* ---------------------------------------------------------- declarations */

static bool
attr_is_bool(const Attr *a)
{
	return a->kind == AT_BOOL;
}

void
b_device(Parser *p, Slice name, Loc nloc, Slice kind, Loc kloc, IntTok index, Loc iloc,
         AttrMap *attrs, Loc at)
{
	if (!at_top_level(p, at, "device declaration"))
		return;
	Device *d = arena_alloc(p->m->arena, sizeof *d);
	d->name = intern(p, name);
	d->loc = at;
	d->image2d_max[0] = d->image2d_max[1] = 8192;
	d->max_work_group_size = 256;
	if (kind.n == 3 && memcmp(kind.s, "cpu", 3) == 0)
		d->kind = DK_CPU;
	else if (kind.n == 3 && memcmp(kind.s, "gpu", 3) == 0)
		d->kind = DK_GPU;
	else if (kind.n == 5 && memcmp(kind.s, "accel", 5) == 0)
		d->kind = DK_ACCEL;
	else
		parser_error(p, kloc, "unknown device kind '%.*s' (expected cpu, gpu or accel)",
		             (int)kind.n, kind.s);
	if (index.overflow || index.mag > INT32_MAX)
		parser_error(p, iloc, "device index out of range");
	d->index = (int64_t)index.mag;
	if (attrs) {
		d->attrs = *attrs;
		for (uint32_t i = 0; i < attrs->n; i++) {
			AttrEntry *e = &attrs->e[i];
			const Attr *a = &e->val;
			if (strcmp(e->key, "texture") == 0) {
				if (!attr_is_bool(a))
					parser_error(p, a->loc, "'texture' must be true or false");
				d->texture = a->u.i != 0;
			} else if (strcmp(e->key, "image2d_max") == 0) {
				if (a->kind != AT_LIST || a->n != 2 || a->u.list[0].kind != AT_INT ||
				    a->u.list[1].kind != AT_INT || a->u.list[0].u.i <= 0 || a->u.list[1].u.i <= 0) {
					parser_error(p, a->loc, "'image2d_max' must be [width, height], two positive integers");
					continue;
				}
				d->image2d_max[0] = a->u.list[0].u.i;
				d->image2d_max[1] = a->u.list[1].u.i;
			} else if (strcmp(e->key, "max_work_group_size") == 0) {
				if (a->kind != AT_INT || a->u.i <= 0) {
					parser_error(p, a->loc, "'max_work_group_size' must be a positive integer");
					continue;
				}
				d->max_work_group_size = a->u.i;
			} else {
				static const char *const known[] = {"texture", "image2d_max",
				                                    "max_work_group_size", NULL};
				parser_error(p, e->loc, "unknown device attribute '%s'", e->key);
				if (!suggest_note_among(p->ctx, e->loc, e->key, strlen(e->key), known, ""))
					note(p, e->loc, "device attributes are texture, image2d_max and max_work_group_size");
			}
		}
	}
	if (!define_global(p, d->name, GK_DEVICE, d, nloc))
		return;
	if (p->m->devices_last)
		p->m->devices_last->next = d;
	else
		p->m->devices = d;
	p->m->devices_last = d;
	line_target(p, &d->loc);
}

static void
default_or_host(Parser *p, Slice name, Loc nloc, Loc at, Sym *slot, Loc *lslot, const char *what)
{
	if (!at_top_level(p, at, what))
		return;
	if (*slot) {
		parser_error(p, at, "second '%s' declaration", what);
		note(p, *lslot, "the first is here");
		return;
	}
	(void)nloc;
	*slot = intern(p, name);
	*lslot = at;
	line_target(p, lslot);
}

void
b_default(Parser *p, Slice name, Loc nloc, Loc at)
{
	default_or_host(p, name, nloc, at, &p->m->default_dev, &p->m->default_loc, "default");
}

void
b_host(Parser *p, Slice name, Loc nloc, Loc at)
{
	default_or_host(p, name, nloc, at, &p->m->host_dev, &p->m->host_loc, "host");
}

void
b_pool(Parser *p, Slice name, Loc nloc, AttrMap *attrs, Loc at)
{
	if (!at_top_level(p, at, "pool declaration"))
		return;
	Pool *pl = arena_alloc(p->m->arena, sizeof *pl);
	pl->name = intern(p, name);
	pl->loc = at;
	if (attrs)
		pl->attrs = *attrs;
	for (uint32_t i = 0; i < pl->attrs.n; i++) {
		AttrEntry *e = &pl->attrs.e[i];
		const Attr *a = &e->val;
		if (strcmp(e->key, "size") == 0) {
			if (a->kind != AT_INT || a->u.i <= 0)
				parser_error(p, a->loc, "pool 'size' must be a positive integer (bytes)");
		} else if (strcmp(e->key, "devices") == 0) {
			bool ok = a->kind == AT_LIST;
			for (uint32_t j = 0; ok && j < a->n; j++)
				ok = a->u.list[j].kind == AT_SYM;
			if (!ok)
				parser_error(p, a->loc, "pool 'devices' must be a list of devices such as [@cpu, @gpu]");
		} else if (strcmp(e->key, "kind") == 0) {
			if (a->kind != AT_STR)
				parser_error(p, a->loc, "pool 'kind' must be a string such as \"workspace\"");
		} else if (strcmp(e->key, "alignment") == 0) {
			if (a->kind != AT_INT || a->u.i <= 0 || (a->u.i & (a->u.i - 1)))
				parser_error(p, a->loc, "pool 'alignment' must be a power of two");
		} else {
			static const char *const known[] = {"size", "devices", "kind", "alignment", NULL};
			parser_error(p, e->loc, "unknown pool attribute '%s'", e->key);
			if (!suggest_note_among(p->ctx, e->loc, e->key, strlen(e->key), known, ""))
				note(p, e->loc, "pool attributes are size, devices, kind and alignment");
		}
	}
	if (!attr_get(&pl->attrs, "size"))
		parser_error(p, nloc, "pool '@%.*s' needs a 'size' attribute", (int)name.n, name.s);
	if (!define_global(p, pl->name, GK_POOL, pl, nloc))
		return;
	if (p->m->pools_last)
		p->m->pools_last->next = pl;
	else
		p->m->pools = pl;
	p->m->pools_last = pl;
	line_target(p, &pl->loc);
}

/* ------------------------------------------------------- places */

static bool
place_int(Parser *p, IntTok v, Loc at, const char *what, int64_t lo, int64_t *out)
{
	if (v.overflow || v.mag > (uint64_t)INT64_MAX || (int64_t)v.mag < lo) {
		parser_error(p, at, "%s must be %s", what, lo ? "a positive integer" : "a byte offset from 0 to 2^63-1");
		return false;
	}
	*out = (int64_t)v.mag;
	return true;
}

void
b_place(Parser *p, Slice pool, Loc at, IntTok off, Loc oloc)
{
	Place pl = {intern(p, pool), 0, {0, 0}, at};
	if (place_int(p, off, oloc, "an offset", 0, &pl.offset))
		VEC_PUSH(p->places, p->nplaces, p->capplaces) = pl;
}

void
b_place_image(Parser *p, Slice kw, Loc at, IntTok id, Loc idloc, IntTok w, Loc wloc,
              IntTok h, Loc hloc)
{
	Place pl = {NULL, 0, {0, 0}, at};
	if (kw.n != 7 || memcmp(kw.s, "image2d", 7) != 0) {
		parser_error(p, at, "expected a place '@pool[offset]' or 'image2d(id)[width, height]', not '%.*s'",
		             (int)kw.n, kw.s);
		return;
	}
	if (place_int(p, id, idloc, "an image id", 0, &pl.offset) &&
	    place_int(p, w, wloc, "an image's width", 1, &pl.image[0]) &&
	    place_int(p, h, hloc, "an image's height", 1, &pl.image[1]))
		VEC_PUSH(p->places, p->nplaces, p->capplaces) = pl;
}

/* Gives node the places read on this line. */
static void
take_places(Parser *p, const void *node)
{
	if (!p->nplaces)
		return;
	module_set_places(p->m, node, p->nplaces, p->places);
	p->nplaces = 0;
}

/* ------------------------------------------------------- types, vdevs */

const VDev *
b_vdev(Parser *p, Slice dev, Slice scope, Loc at)
{
	(void)at;
	Sym d = intern(p, dev);
	if (!scope.n)
		return vdev_get(p->m, d, NULL);
	char buf[256];
	size_t n;
	const char *s = scope_canonical(scope.s, scope.n, &n, buf, sizeof buf);
	return vdev_get(p->m, d, sym_intern(p->m, s, n));
}

static bool
elem_type(Parser *p, Slice elem, Loc at, DType *dt)
{
	if (dtype_parse(elem.s, elem.n, dt))
		return true;
	parser_error(p, at, "unknown element type '%.*s'", (int)elem.n, elem.s);
	Suggest sg;
	suggest_init(&sg, elem.s, elem.n);
	for (int k = 0; k < ET__COUNT; k++)
		suggest_offer(&sg, elem_name((ElemKind)k));
	suggest_note(&sg, p->ctx, at, "");
	return false;
}

void
b_push_dim(Parser *p, IntTok v, Loc at)
{
	if (v.overflow || v.mag > ((uint64_t)1 << 40)) {
		parser_error(p, at, "dimension too large");
		v.mag = 1;
	}
	scratch_push(p, (void *)(uintptr_t)v.mag);
}

const Type *
b_tensor_type(Parser *p, Slice elem, Loc at, uint32_t mark)
{
	uint32_t n = scratch_count(p, mark);
	void **items = scratch_items(p, mark);
	int64_t dims[IR_MAX_RANK];
	DType dt = {ET_F32, 1};
	bool ok = elem_type(p, elem, at, &dt);
	if (n > IR_MAX_RANK) {
		parser_error(p, at, "tensor rank %u exceeds the limit of %d", n, IR_MAX_RANK);
		ok = false;
	}
	int64_t numel = 1;
	for (uint32_t i = 0; ok && i < n; i++) {
		dims[i] = (int64_t)(uintptr_t)items[i];
		if (dims[i] && numel > ((int64_t)1 << 48) / dims[i]) {
			parser_error(p, at, "tensor has more than 2^48 elements");
			ok = false;
		}
		numel *= dims[i];
	}
	scratch_pop(p, mark);
	if (!ok)
		return type_scalar(p->m, ET_F32);
	return type_tensor(p->m, dt, n, dims);
}

const Type *
b_tuple_type(Parser *p, uint32_t mark, Loc at)
{
	uint32_t n = scratch_count(p, mark);
	const Type *t = type_tuple(p->m, n, (const Type *const *)scratch_items(p, mark));
	scratch_pop(p, mark);
	const char *why = type_over_limits(t);
	if (why) {
		/* Once: the enclosing tuples see a scalar in its place. */
		parser_error(p, at, "%s", why);
		return type_scalar(p->m, ET_F32);
	}
	return t;
}

const Type *
b_scalar_type(Parser *p, Slice elem, Loc at)
{
	DType dt;
	if (!elem_type(p, elem, at, &dt))
		return type_scalar(p->m, ET_I32);
	return type_tensor(p->m, dt, 0, NULL);
}

/* ------------------------------------------------------------ attributes */

static Attr *
new_attr(Parser *p, int kind, Loc at)
{
	Attr *a = arena_alloc(p->m->arena, sizeof *a);
	a->kind = (uint8_t)kind;
	a->loc = at;
	return a;
}

static int64_t
signed_int(Parser *p, IntTok v, bool neg, Loc at)
{
	uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	if (v.overflow || v.mag > lim) {
		parser_error(p, at, "integer out of range of i64");
		return 0;
	}
	return neg ? (int64_t)(0 - v.mag) : (int64_t)v.mag;
}

/* A literal too large for any integer type: above u64's range, or negated
 * below i64's. */
static void
int_range_error(Parser *p, IntTok v, bool neg, Loc at)
{
	parser_error(p, at, "%s%.*s is out of the range of %s", neg ? "-" : "", (int)v.text.n,
	             v.text.s, neg ? "i64" : "u64");
}

/* An integer literal that is not negated, as the bits of an int64_t (above
 * INT64_MAX: of the unsigned number, *u64 set). */
static int64_t
literal_int(Parser *p, IntTok v, Loc at, bool *u64)
{
	*u64 = !v.overflow && v.mag > (uint64_t)INT64_MAX;
	if (v.overflow) {
		int_range_error(p, v, false, at);
		return 0;
	}
	return (int64_t)v.mag;
}

Attr *
b_attr_int(Parser *p, IntTok v, bool neg, Loc at)
{
	Attr *a = new_attr(p, AT_INT, at);
	a->u.i = signed_int(p, v, neg, at);
	return a;
}

Attr *
b_attr_float(Parser *p, double v, Loc at)
{
	Attr *a = new_attr(p, AT_FLOAT, at);
	a->u.f = v;
	return a;
}

Attr *
b_attr_str(Parser *p, StrTok s, Loc at)
{
	Attr *a = new_attr(p, AT_STR, at);
	a->u.s = s.s;
	a->n = s.n;
	return a;
}

Attr *
b_attr_bool(Parser *p, bool v, Loc at)
{
	Attr *a = new_attr(p, AT_BOOL, at);
	a->u.i = v;
	return a;
}

Attr *
b_attr_sym(Parser *p, Slice s, Loc at)
{
	Attr *a = new_attr(p, AT_SYM, at);
	a->u.sym = intern(p, s);
	return a;
}

Attr *
b_attr_list(Parser *p, uint32_t mark, Loc at)
{
	Attr *a = new_attr(p, AT_LIST, at);
	uint32_t n = scratch_count(p, mark);
	Attr **items = (Attr **)scratch_items(p, mark);
	a->n = n;
	a->u.list = arena_alloc(p->m->arena, n * sizeof *a->u.list + 1);
	for (uint32_t i = 0; i < n; i++)
		a->u.list[i] = *items[i];
	scratch_pop(p, mark);
	return a;
}

/* Entries travel through the scratch stack as AttrEntry in disguise. */
Attr *
b_attr_entry(Parser *p, Slice key, Loc kloc, Attr *val)
{
	AttrEntry *e = arena_alloc(p->m->arena, sizeof *e);
	e->key = intern(p, key);
	e->loc = kloc;
	e->val = *val;
	return (Attr *)(void *)e;
}

static int
entry_cmp(const void *a, const void *b)
{
	return strcmp(((const AttrEntry *)a)->key, ((const AttrEntry *)b)->key);
}

AttrMap *
b_attrmap(Parser *p, uint32_t mark)
{
	uint32_t n = scratch_count(p, mark);
	AttrEntry **items = (AttrEntry **)(void *)scratch_items(p, mark);
	AttrMap *m = arena_alloc(p->m->arena, sizeof *m);
	m->n = n;
	m->e = arena_alloc(p->m->arena, n * sizeof *m->e + 1);
	for (uint32_t i = 0; i < n; i++)
		m->e[i] = *items[i];
	scratch_pop(p, mark);
	/* Stable order: by key, and keys are unique. */
	qsort(m->e, n, sizeof *m->e, entry_cmp);
	for (uint32_t i = 1; i < n; i++)
		if (m->e[i].key == m->e[i - 1].key) {
			Loc a = m->e[i].loc, b = m->e[i - 1].loc;
			bool later = a.line > b.line || (a.line == b.line && a.col > b.col);
			parser_error(p, later ? a : b, "duplicate attribute '%s'", m->e[i].key);
			note(p, later ? b : a, "first given here");
		}
	return m;
}

/* ----------------------------------------------------------- graph level */

static Block *
graph_block(Parser *p, Loc at, const char *what)
{
	Cx *c = top(p);
	if (!c || (c->kind != CX_FN && c->kind != CX_ARM)) {
		if (!c || c->kind != CX_SKIP)
			parser_error(p, at, "%s outside a function body", what);
		return NULL;
	}
	if (c->done) {
		parser_error(p, at, "%s after '%s'", what, c->kind == CX_FN ? "return" : "yield");
		return NULL;
	}
	return c->blk;
}

Value *
b_param(Parser *p, Slice name, Loc nloc, const Type *ty, Loc tyloc, const VDev *vd)
{
	(void)tyloc;
	Value *v = value_new(p->m, VK_PARAM, 0);
	v->name = copy_name(p, name);
	v->type = ty;
	v->flags = VF_TYPED;
	v->loc = nloc;
	if (vd) {
		v->vd = vd;
		v->flags |= VF_ON;
	}
	if (p->has_pending_loc) {
		v->loc = p->pending_loc;
		p->has_pending_loc = false;
	}
	take_places(p, v);
	return v;
}

/* The n parameters on the scratch stack above mark, popped into an
 * array in the arena (a slot more: never of size 0). */
static void *
take_params(Parser *p, uint32_t mark, uint32_t *n)
{
	*n = scratch_count(p, mark);
	void **v = arena_alloc(p->m->arena, *n * sizeof *v + 1);
	scratch_copy(p, mark, v);
	scratch_pop(p, mark);
	return v;
}

/* Whether a definition (what: "function definition") is at the top
 * level; else its body is skipped, so its lines cause no cascade. */
static bool
definition_at_top(Parser *p, Loc at, const char *what)
{
	if (at_top_level(p, at, what))
		return true;
	push_cx(p, CX_SKIP, at);
	return false;
}

/* A function's or a prim's body opens (kind CX_FN or CX_PRIM): its
 * header's line counts as the definition's (def_begin), its n
 * parameters are in scope, and a trailing loc(...) goes to *loc. */
static Cx *
open_definition(Parser *p, int kind, void *const *params, uint32_t n, Loc *loc, Loc at)
{
	Cx *c = push_cx(p, kind, at);
	def_begin(p);
	names_open(p, kind == CX_PRIM);
	for (uint32_t i = 0; i < n; i++)
		define(p, params[i], obj_loc(p->names, params[i]));
	line_target(p, loc);
	return c;
}

void
b_fn(Parser *p, Slice name, Loc nloc, uint32_t mark, TypeOn ret, Loc at)
{
	Func *f = arena_alloc(p->m->arena, sizeof *f);
	f->name = intern(p, name);
	f->loc = at;
	f->params = take_params(p, mark, &f->nparams);
	f->ret_type = ret.ty;
	if (ret.ty)
		f->flags |= VF_TYPED;
	if (ret.vd) {
		f->ret_vd = ret.vd;
		f->flags |= VF_ON;
	}
	if (!definition_at_top(p, at, "function definition"))
		return;
	if (define_global(p, f->name, GK_FUNC, f, nloc)) {
		if (p->m->funcs_last)
			p->m->funcs_last->next = f;
		else
			p->m->funcs = f;
		p->m->funcs_last = f;
	}
	/* Open the body even after an error, so its lines are still checked. */
	Cx *c = open_definition(p, CX_FN, (void *const *)f->params, f->nparams, &f->loc, at);
	c->fn = f;
	c->blk = &f->body;
}

static void
append(Block *b, Value *v)
{
	if (b->last)
		b->last->next = v;
	else
		b->first = v;
	b->last = v;
}

void
b_binding(Parser *p, Slice name, Loc nloc, TypeOn tyon, Value *rhs)
{
	Block *b = graph_block(p, nloc, "binding");
	if (!rhs) /* an error was reported; keep the name to avoid cascades */
		rhs = value_new(p->m, VK_BIND, 0), rhs->form = B_TUPLE;
	rhs->name = copy_name(p, name);
	rhs->loc = nloc;
	if (tyon.ty) {
		rhs->type = tyon.ty;
		rhs->flags |= VF_TYPED;
	}
	if (tyon.vd) {
		rhs->vd = tyon.vd;
		rhs->flags |= VF_ON;
	}
	line_target(p, &rhs->loc);
	if (p->nplaces && rhs->form == B_IF) {
		parser_error(p, p->places[0].loc, "an 'if' binding has no place of its own: its arms' values have");
		p->nplaces = 0;
	}
	if (p->nplaces && rhs->form == B_CALL) {
		/* its callee makes its result, or returns an operand's buffer */
		parser_error(p, p->places[0].loc, "a call of a function has no place of its own: its "
		             "result is made by the callee or is an operand's buffer");
		p->nplaces = 0;
	}
	take_places(p, rhs);
	if (!b) {
		if (p->ncx && top(p)->kind == CX_SKIP && rhs->form == B_IF)
			push_cx(p, CX_SKIP, nloc);
		return;
	}
	append(b, rhs);
	if (rhs->form == B_IF) {
		/* The if's own name is defined when its last arm closes. */
		Cx *c = push_cx(p, CX_ARM, nloc);
		c->ifv = rhs;
		c->blk = &rhs->u.arms[0];
	} else {
		define(p, rhs, nloc);
	}
	poison_binding(p, rhs);
}

static void
set_yield(Parser *p, Value *v, Loc at, int want, const char *kw)
{
	Cx *c = top(p);
	if (!c || c->kind != want) {
		if (c && c->kind == CX_ARM)
			parser_error(p, at, "'return' inside an if arm; an arm ends with 'yield'");
		else if (c && c->kind == CX_FN)
			parser_error(p, at, "'yield' outside an if arm; a function ends with 'return'");
		else if (!c || c->kind != CX_SKIP)
			parser_error(p, at, "'%s' outside %s", kw,
			             want == CX_FN ? "a function body" : "an if arm");
		return;
	}
	if (c->done) {
		parser_error(p, at, "second '%s' in one block", kw);
		return;
	}
	c->blk->yield = v;
	c->blk->yloc = at;
	c->done = true;
	line_target(p, &c->blk->yloc);
}

void
b_return(Parser *p, Value *v, Loc at)
{
	set_yield(p, v, at, CX_FN, "return");
}

void
b_yield(Parser *p, Value *v, Loc at)
{
	set_yield(p, v, at, CX_ARM, "yield");
}

void
b_close(Parser *p, Loc at)
{
	Cx *c = top(p);
	if (!c) {
		parser_error(p, at, "'}' without an open block");
		return;
	}
	switch (c->kind) {
	case CX_FN:
		if (!c->done) {
			parser_error(p, at, "function '@%s' ends without 'return'", c->fn->name);
			note(p, c->loc, "the function starts here");
		}
		def_end(p, c);
		names_close(p);
		break;
	case CX_ARM:
		if (c->arm == 0) {
			parser_error(p, at, "'if' needs an 'else' arm: '} else {'");
			note(p, c->loc, "the if starts here");
		} else if (!c->done) {
			parser_error(p, at, "if arm ends without 'yield'");
		}
		kill_defs(p, c->defs_mark);
		p->ncx--;
		define(p, c->ifv, c->ifv->loc);
		return;
	case CX_PRIM:
		def_end(p, c);
		names_close(p);
		break;
	case CX_PBLOCK:
		kill_defs(p, c->defs_mark);
		break;
	case CX_SKIP:
	case CX_PROG:
		break;
	}
	p->ncx--;
}

void
b_else(Parser *p, Loc at)
{
	Cx *c = top(p);
	if (c && c->kind == CX_ARM && c->arm == 0) {
		if (!c->done)
			parser_error(p, at, "if arm ends without 'yield'");
		kill_defs(p, c->defs_mark);
		c->arm = 1;
		c->done = false;
		c->blk = &c->ifv->u.arms[1];
		return;
	}
	if (c && c->kind == CX_PBLOCK && c->ps->kind == S_IF && c->arm == 0) {
		kill_defs(p, c->defs_mark);
		c->arm = 1;
		c->ps->u.cond.has_else = true;
		c->pblk = &c->ps->u.cond.arms[1];
		return;
	}
	if (c && c->kind == CX_SKIP)
		return;
	parser_error(p, at, "'else' without an open 'if'");
	/* '} else {' closes whatever block is open and opens one to skip. */
	if (c)
		b_close(p, at);
	push_cx(p, CX_SKIP, at);
}

static Value *
new_bind(Parser *p, int form, uint32_t nargs, Loc at)
{
	Value *v = value_new(p->m, VK_BIND, nargs);
	v->form = (uint8_t)form;
	v->loc = at;
	return v;
}

static Value *
bind_with_args(Parser *p, int form, uint32_t mark, Loc at)
{
	uint32_t n = scratch_count(p, mark);
	Value *v = new_bind(p, form, n, at);
	scratch_copy(p, mark, v->args);
	scratch_pop(p, mark);
	return v;
}

Value *
b_op(Parser *p, Slice name, Loc at, uint32_t mark, AttrMap *attrs)
{
	Value *v = bind_with_args(p, B_OP, mark, at);
	v->u.op = module_opcall(p->m, op_lookup(name.s, name.n), attrs);
	if (!v->u.op->op) {
		parser_error(p, at, "unknown operator '%.*s'", (int)name.n, name.s);
		Suggest sg;
		suggest_init(&sg, name.s, name.n);
		for (const OpDef *const *d = op_all(); *d; d++)
			suggest_offer(&sg, (*d)->name);
		suggest_note(&sg, p->ctx, at, "");
	}
	return v;
}

Value *
b_call(Parser *p, Slice callee, Loc at, uint32_t mark, int form)
{
	Value *v = bind_with_args(p, form, mark, at);
	v->u.ref = intern(p, callee); /* resolved once every global is read */
	return v;
}

Value *
b_on_device(Parser *p, Value *arg, const VDev *vd, int flags, Loc at)
{
	Value *v = new_bind(p, B_ON_DEVICE, 1, at);
	v->args[0] = arg;
	v->u.target = vd;
	v->flags |= (uint16_t)(flags & (VF_BODY | VF_RESULT));
	return v;
}

int
b_ondev_flag(Parser *p, int flags, Slice name, Loc at, bool val)
{
	int bit;
	if (name.n == 14 && memcmp(name.s, "constrain_body", 14) == 0)
		bit = VF_BODY;
	else if (name.n == 16 && memcmp(name.s, "constrain_result", 16) == 0)
		bit = VF_RESULT;
	else {
		static const char *const known[] = {"constrain_body", "constrain_result", NULL};
		parser_error(p, at, "unknown on_device option '%.*s'", (int)name.n, name.s);
		if (!suggest_note_among(p->ctx, at, name.s, name.n, known, ""))
			note(p, at, "the options are constrain_body and constrain_result");
		return flags;
	}
	if (flags & (bit << 8)) {
		parser_error(p, at, "on_device option '%.*s' given twice", (int)name.n, name.s);
		return flags;
	}
	/* bit << 8 remembers that the option was given (b_on_device drops it) */
	return (val ? flags | bit : flags & ~bit) | (bit << 8);
}

Value *
b_device_copy(Parser *p, Value *arg, const VDev *src, const VDev *dst, Loc at)
{
	Value *v = new_bind(p, B_DEVICE_COPY, 1, at);
	v->args[0] = arg;
	value_set_copy(p->m, v, src, dst);
	return v;
}

Value *
b_tuple(Parser *p, uint32_t mark, Loc at)
{
	return bind_with_args(p, B_TUPLE, mark, at);
}

Value *
b_proj(Parser *p, ProjTok pj, Loc at)
{
	Value *v = new_bind(p, B_PROJ, 1, at);
	v->args[0] = b_use(p, pj.name, at);
	v->u.index = pj.index;
	return v;
}

Value *
b_if(Parser *p, Value *cond, Loc at)
{
	Value *v = new_bind(p, B_IF, 1, at);
	v->args[0] = cond;
	v->u.arms = arena_alloc(p->m->arena, 2 * sizeof(Block));
	return v;
}

Value *
b_use(Parser *p, Slice name, Loc at)
{
	if (p->ncx && top(p)->kind == CX_SKIP)
		return NULL; /* a block not read after an error: no cascade */
	if (!p->names || p->names->prim) {
		if (!p->ncx || top(p)->kind != CX_SKIP)
			parser_error(p, at, "'%%%.*s' used outside a function", (int)name.n, name.s);
		return NULL;
	}
	return lookup(p, name, at);
}

static Value *
new_lit(Parser *p, Loc at, uint16_t flags)
{
	Value *v = value_new(p->m, VK_LIT, 0);
	v->loc = at;
	v->flags = flags;
	return v;
}

Value *
b_lit_int(Parser *p, IntTok t, bool neg, Loc at)
{
	Value *v = new_lit(p, at, 0);
	if (neg) {
		if (t.overflow || t.mag > (uint64_t)INT64_MAX + 1)
			int_range_error(p, t, true, at);
		else
			v->u.i = (int64_t)(0 - t.mag);
		return v;
	}
	bool u64;
	v->u.i = literal_int(p, t, at, &u64);
	if (u64)
		v->flags |= VF_LIT_U64;
	return v;
}

Value *
b_lit_float(Parser *p, double f, Loc at)
{
	Value *v = new_lit(p, at, VF_LIT_FLOAT);
	v->u.f = f;
	return v;
}

Value *
b_lit_bool(Parser *p, bool b, Loc at)
{
	Value *v = new_lit(p, at, VF_LIT_BOOL);
	v->u.i = b;
	return v;
}

/* ------------------------------------------------------------- constants */

uint32_t
b_nums_mark(Parser *p)
{
	return p->nnums;
}

void
b_push_num(Parser *p, NumTok n)
{
	VEC_PUSH(p->nums, p->nnums, p->capnums) = n;
}

/* An integer in a floating-point constant; one beyond 64 bits is read as
 * the float its digits spell. */
static double
int_as_double(const NumTok *t)
{
	double d = (double)t->it.mag;
	if (t->it.overflow) {
		char *s = xmalloc(t->it.text.n + 1);
		memcpy(s, t->it.text.s, t->it.text.n);
		s[t->it.text.n] = 0;
		d = strtod(s, NULL);
		free(s);
	}
	return t->kind == NK_NEGINT ? -d : d;
}

static Value *
make_const(Parser *p, const Type *ty, Loc tyloc, const NumTok *nums, uint32_t n, Loc at)
{
	Value *v = new_bind(p, B_CONST, 0, at);
	ConstData *cd = arena_alloc(p->m->arena, sizeof *cd);
	v->u.cdata = cd;
	v->type = ty;
	v->flags |= VF_TYPED;
	if (ty->kind != TY_TENSOR || ty->dt.lanes != 1) {
		parser_error(p, tyloc, "a constant must have a tensor type");
		return v;
	}
	int64_t want = type_numel(ty);
	if ((int64_t)n != want) {
		parser_error(p, at, "a constant of %lld element%s needs as many values, %u given",
		             (long long)want, want == 1 ? "" : "s", n);
		return v;
	}
	cd->count = n;
	bool fl = elem_is_float(ty->dt.kind);
	if (fl)
		cd->u.f = arena_alloc(p->m->arena, n * sizeof(double) + 1);
	else
		cd->u.i = arena_alloc(p->m->arena, n * sizeof(int64_t) + 1);
	for (uint32_t i = 0; i < n; i++) {
		const NumTok *t = &nums[i];
		if (fl) {
			if (t->kind == NK_BOOL) {
				parser_error(p, t->loc, "boolean value in a floating-point constant");
				return v;
			}
			cd->u.f[i] = t->kind == NK_FLOAT ? t->f : int_as_double(t);
			if (!elem_float_fits((ElemKind)ty->dt.kind, cd->u.f[i])) {
				parser_error(p, t->loc, "%g is out of the range of %s", cd->u.f[i],
				             elem_name(ty->dt.kind));
				return v;
			}
			continue;
		}
		if (t->kind == NK_FLOAT) {
			parser_error(p, t->loc, "floating-point value in a constant of %s", elem_name(ty->dt.kind));
			return v;
		}
		if (ty->dt.kind == ET_BOOL && t->kind != NK_BOOL) {
			parser_error(p, t->loc, "a bool constant takes true or false");
			return v;
		}
		if (ty->dt.kind != ET_BOOL && t->kind == NK_BOOL) {
			parser_error(p, t->loc, "boolean value in a constant of %s", elem_name(ty->dt.kind));
			return v;
		}
		/* Each value must fit the element type; u64 keeps its bits. */
		int64_t lo;
		uint64_t hi;
		elem_int_range((ElemKind)ty->dt.kind, &lo, &hi);
		bool neg = t->kind == NK_NEGINT && t->it.mag != 0;
		if (t->it.overflow || (neg ? t->it.mag > (uint64_t)-(lo + 1) + 1 : t->it.mag > hi)) {
			parser_error(p, t->loc, "%s%.*s is out of the range of %s", neg ? "-" : "",
			             (int)t->it.text.n, t->it.text.s, elem_name(ty->dt.kind));
			return v;
		}
		cd->u.i[i] = neg ? (int64_t)(0 - t->it.mag) : (int64_t)t->it.mag;
	}
	return v;
}

Value *
b_const(Parser *p, const Type *ty, Loc tyloc, uint32_t mark, Loc at)
{
	/* an empty list may come before anything was ever pushed */
	const NumTok *nums = p->nums ? p->nums + mark : NULL;
	Value *v = make_const(p, ty, tyloc, nums, p->nnums - mark, at);
	p->nnums = mark;
	return v;
}

Value *
b_const_scalar(Parser *p, const Type *ty, Loc tyloc, NumTok n, Loc at)
{
	if (ty->kind == TY_TENSOR && ty->n != 0) {
		parser_error(p, n.loc, "a constant of shape with %lld elements needs a [list] of values",
		             (long long)type_numel(ty));
		Value *v = new_bind(p, B_CONST, 0, at); /* no second error about the count */
		v->u.cdata = arena_alloc(p->m->arena, sizeof(ConstData));
		v->type = ty;
		v->flags |= VF_TYPED;
		return v;
	}
	return make_const(p, ty, tyloc, &n, 1, at);
}

Value *
b_const_file(Parser *p, const Type *ty, Loc tyloc, Slice key, Loc kloc, StrTok path, Loc at)
{
	Value *v = new_bind(p, B_CONST, 0, at);
	ConstData *cd = arena_alloc(p->m->arena, sizeof *cd);
	v->u.cdata = cd;
	v->type = ty;
	v->flags |= VF_TYPED | VF_CONST_FILE;
	if (key.n != 4 || memcmp(key.s, "file", 4) != 0)
		parser_error(p, kloc, "expected file=\"...\" after the constant's type");
	if (ty->kind != TY_TENSOR)
		parser_error(p, tyloc, "a constant must have a tensor type");
	if (path.n == 0 || memchr(path.s, 0, path.n))
		parser_error(p, kloc, "bad file name for a constant");
	cd->path = path.s;
	cd->count = ty->kind == TY_TENSOR ? (uint32_t)type_numel(ty) : 0;
	return v;
}

/* ------------------------------------------------------------ loop level */

static PBlock *
prim_block(Parser *p, Loc at, const char *what)
{
	Cx *c = top(p);
	if (!c || (c->kind != CX_PRIM && c->kind != CX_PBLOCK)) {
		if (!c || c->kind != CX_SKIP)
			parser_error(p, at, "%s outside a prim body", what);
		return NULL;
	}
	return c->pblk;
}

static PStmt *
new_stmt(Parser *p, int kind, Loc at)
{
	PStmt *s = arena_alloc(p->m->arena, sizeof *s);
	s->kind = (uint8_t)kind;
	s->loc = at;
	return s;
}

static void
append_stmt(Parser *p, PBlock *b, PStmt *s)
{
	if (b->last)
		b->last->next = s;
	else
		b->first = s;
	b->last = s;
	line_target(p, &s->loc);
}

static PVar *
new_pvar(Parser *p, int kind, Slice name, Loc at)
{
	PVar *v = arena_alloc(p->m->arena, sizeof *v);
	v->kind = (uint8_t)kind;
	v->name = copy_name(p, name);
	v->loc = at;
	return v;
}

PVar *
b_pparam_scalar(Parser *p, Slice name, Loc nloc, Slice elem, Loc eloc)
{
	PVar *v = new_pvar(p, PV_SCALAR, name, nloc);
	v->type = b_scalar_type(p, elem, eloc);
	if (p->has_pending_loc) {
		v->loc = p->pending_loc;
		p->has_pending_loc = false;
	}
	take_places(p, v);
	return v;
}

PVar *
b_pparam_buffer(Parser *p, Slice name, Loc nloc, const Type *ty, Loc tyloc, const VDev *vd)
{
	PVar *v = new_pvar(p, PV_BUFFER, name, nloc);
	if (ty->kind != TY_TENSOR) {
		parser_error(p, tyloc, "a buffer must have a tensor type");
		ty = type_scalar(p->m, ET_F32);
	}
	v->type = ty;
	v->vd = vd;
	if (p->has_pending_loc) {
		v->loc = p->pending_loc;
		p->has_pending_loc = false;
	}
	take_places(p, v);
	return v;
}

void
b_prim(Parser *p, Slice name, Loc nloc, uint32_t mark, AttrMap *attrs, Loc at)
{
	Prim *pr = arena_alloc(p->m->arena, sizeof *pr);
	pr->name = intern(p, name);
	pr->loc = at;
	pr->params = take_params(p, mark, &pr->nparams);
	if (attrs)
		pr->attrs = *attrs;
	if (!definition_at_top(p, at, "prim definition"))
		return;
	if (define_global(p, pr->name, GK_PRIM, pr, nloc)) {
		if (p->m->prims_last)
			p->m->prims_last->next = pr;
		else
			p->m->prims = pr;
		p->m->prims_last = pr;
	}
	Cx *c = open_definition(p, CX_PRIM, (void *const *)pr->params, pr->nparams, &pr->loc, at);
	c->prim = pr;
	c->pblk = &pr->body;
}

ForSpec
b_for_kind(Parser *p, Slice kind, Loc at, Slice thread)
{
	static const struct { const char *name; int kind; } kinds[] = {
		{"serial", FK_SERIAL}, {"parallel", FK_PARALLEL},
		{"vectorized", FK_VECTORIZED}, {"unrolled", FK_UNROLLED},
	};
	ForSpec fs = {FK_SERIAL, {0}, at};
	if (thread.n) {
		if (kind.n != 4 || memcmp(kind.s, "bind", 4) != 0)
			parser_error(p, at, "expected bind(THREAD), found '%.*s(...)'", (int)kind.n, kind.s);
		fs.kind = FK_THREAD;
		fs.thread = thread;
		return fs;
	}
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (strlen(kinds[i].name) == kind.n && memcmp(kinds[i].name, kind.s, kind.n) == 0) {
			fs.kind = kinds[i].kind;
			return fs;
		}
	parser_error(p, at, "unknown loop kind '%.*s'", (int)kind.n, kind.s);
	Suggest sg;
	suggest_init(&sg, kind.s, kind.n);
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		suggest_offer(&sg, kinds[i].name);
	if (!suggest_note(&sg, p->ctx, at, ""))
		note(p, at, "loop kinds are serial, parallel, vectorized, unrolled and bind(THREAD)");
	return fs;
}

static void
open_pblock(Parser *p, PStmt *s, PBlock *body, Loc at)
{
	Cx *c = push_cx(p, CX_PBLOCK, at);
	c->ps = s;
	c->pblk = body;
}

void
b_for(Parser *p, Slice var, Loc vloc, PExpr *lo, PExpr *hi, ForSpec fs, Loc at)
{
	PBlock *b = prim_block(p, at, "'for'");
	PStmt *s = new_stmt(p, S_FOR, at);
	s->fkind = (uint8_t)fs.kind;
	s->u.loop.lo = lo;
	s->u.loop.hi = hi;
	if (fs.kind == FK_THREAD)
		s->u.loop.thread = intern(p, fs.thread);
	s->u.loop.var = new_pvar(p, PV_SCALAR, var, vloc);
	s->u.loop.var->type = type_scalar(p->m, ET_I32);
	if (!b) {
		push_cx(p, CX_SKIP, at);
		return;
	}
	append_stmt(p, b, s);
	open_pblock(p, s, &s->u.loop.body, at);
	define(p, s->u.loop.var, vloc);
}

void
b_pif(Parser *p, PExpr *cond, Loc at)
{
	PBlock *b = prim_block(p, at, "'if'");
	PStmt *s = new_stmt(p, S_IF, at);
	s->u.cond.cond = cond;
	if (!b) {
		push_cx(p, CX_SKIP, at);
		return;
	}
	append_stmt(p, b, s);
	open_pblock(p, s, &s->u.cond.arms[0], at);
}

void
b_let(Parser *p, Slice var, Loc vloc, const Type *ty, PExpr *val, Loc at)
{
	PBlock *b = prim_block(p, at, "'let'");
	PStmt *s = new_stmt(p, S_LET, at);
	s->u.let.var = new_pvar(p, PV_SCALAR, var, vloc);
	s->u.let.var->type = ty;   /* NULL: inferred by the verifier */
	s->u.let.val = val;
	if (!b)
		return;
	append_stmt(p, b, s);
	define(p, s->u.let.var, vloc);
}

static PVar *
lookup_pvar(Parser *p, Slice name, Loc at)
{
	if (p->ncx && top(p)->kind == CX_SKIP)
		return NULL;
	if (!p->names || !p->names->prim) {
		if (!p->ncx || top(p)->kind != CX_SKIP)
			parser_error(p, at, "'%%%.*s' used outside a prim", (int)name.n, name.s);
		return NULL;
	}
	return lookup(p, name, at);
}

static PIndex *
take_indices(Parser *p, uint32_t mark, uint32_t *n)
{
	*n = scratch_count(p, mark);
	PIndex *idx = arena_alloc(p->m->arena, *n * sizeof *idx + 1);
	PIndex **items = (PIndex **)scratch_items(p, mark);
	for (uint32_t i = 0; i < *n; i++)
		idx[i] = *items[i];
	scratch_pop(p, mark);
	return idx;
}

void
b_store(Parser *p, Slice buf, Loc at, uint32_t mark, PExpr *val)
{
	PBlock *b = prim_block(p, at, "store");
	PStmt *s = new_stmt(p, S_STORE, at);
	s->u.store.idx = take_indices(p, mark, &s->n);
	s->u.store.val = val;
	if (!b)
		return;
	s->u.store.buf = lookup_pvar(p, buf, at);
	append_stmt(p, b, s);
}

void
b_alloc(Parser *p, Slice var, Loc vloc, const Type *ty, const VDev *vd, const Slice *kw,
        uint32_t img, AttrMap *annots, Loc at)
{
	PBlock *b = prim_block(p, at, "'alloc'");
	PStmt *s = new_stmt(p, S_ALLOC, at);
	if (kw) {
		uint32_t n = scratch_count(p, img);
		void **items = scratch_items(p, img);
		if (kw->n != 7 || memcmp(kw->s, "image2d", 7) != 0)
			parser_error(p, at, "expected 'image2d[width, height]' or annotations after the "
			             "device of an alloc, not '%.*s'", (int)kw->n, kw->s);
		else if (n != 2)
			parser_error(p, at, "'image2d' takes [width, height], 2 sizes, not %u", n);
		else if (!items[0] || !items[1])
			parser_error(p, at, "an image's width and height are at least 1");
		else
			for (int i = 0; i < 2; i++)
				s->u.alloc.image[i] = (int64_t)(uintptr_t)items[i];
		scratch_pop(p, img);
	}
	PVar *v = new_pvar(p, PV_BUFFER, var, vloc);
	if (ty->kind != TY_TENSOR) {
		parser_error(p, at, "a buffer must have a tensor type");
		ty = type_scalar(p->m, ET_F32);
	}
	v->type = ty;
	v->vd = vd;
	if (annots)
		v->annots = *annots;
	s->u.alloc.buf = v;
	take_places(p, v);
	if (!b)
		return;
	append_stmt(p, b, s);
	define(p, v, vloc);
}

static PExpr *
new_expr(Parser *p, int kind, Loc at)
{
	PExpr *e = arena_alloc(p->m->arena, sizeof *e);
	e->kind = (uint8_t)kind;
	e->loc = at;
	e->depth = 1;
	return e;
}

/* Expression depth is the user's, and printing and checking expressions
 * recurse; so it is capped here, with a clear error, once per line. */
static PExpr *
deepen(Parser *p, PExpr *e, PExpr *child)
{
	if (child && child->depth + 1 > e->depth)
		e->depth = (uint16_t)(child->depth + 1);
	if (e->depth > IR_MAX_EXPR_DEPTH) {
		if (child->depth == IR_MAX_EXPR_DEPTH)
			parser_error(p, e->loc, "expression nested deeper than %d", IR_MAX_EXPR_DEPTH);
		e->depth = IR_MAX_EXPR_DEPTH + 1;
	}
	return e;
}

void
b_eval(Parser *p, Slice fn, Loc at, uint32_t mark)
{
	PExpr *call = b_e_call(p, fn, at, mark);
	PBlock *b = prim_block(p, at, "call");
	if (!b)
		return;
	PStmt *s;
	if (fn.n == 15 && memcmp(fn.s, "texture2d_store", 15) == 0) {
		s = new_stmt(p, S_TEX_STORE, at);
		if (call->n != 4 || !call->u.call.args[0] || call->u.call.args[0]->kind != E_VAR) {
			parser_error(p, at, "texture2d_store takes (%%image, x, y, value)");
			return;
		}
		s->u.tex.buf = call->u.call.args[0]->u.var;
		s->u.tex.x = call->u.call.args[1];
		s->u.tex.y = call->u.call.args[2];
		s->u.tex.val = call->u.call.args[3];
	} else {
		s = new_stmt(p, S_EVAL, at);
		s->u.eval = call;
	}
	append_stmt(p, b, s);
}

void
b_barrier(Parser *p, Loc at)
{
	PBlock *b = prim_block(p, at, "'barrier'");
	if (b)
		append_stmt(p, b, new_stmt(p, S_BARRIER, at));
}

void
b_kernel(Parser *p, Slice name, Loc nloc, Loc at, Launch *launch)
{
	(void)nloc;
	Cx *c = top(p);
	PStmt *s = new_stmt(p, S_KERNEL, at);
	s->u.kernel.name = intern(p, name);
	s->u.kernel.launch = launch;
	if (!c || c->kind != CX_PRIM) {
		if (!c || c->kind != CX_SKIP)
			parser_error(p, at, "'kernel' must be at the top of a prim body");
		push_cx(p, CX_SKIP, at);
		return;
	}
	append_stmt(p, c->pblk, s);
	open_pblock(p, s, &s->u.kernel.body, at);
}

static bool
is_word(Parser *p, Slice w, Loc at, const char *want)
{
	if (w.n == strlen(want) && memcmp(w.s, want, w.n) == 0)
		return true;
	parser_error(p, at, "expected '%s', found '%.*s'", want, (int)w.n, w.s);
	return false;
}

/* launch(global=[..], local=[..], args=[..]): three sizes each, the
 * arguments already looked up (NULL where undefined). */
Launch *
b_launch(Parser *p, Slice kw, Loc kwloc, Slice gkey, Loc gloc, uint32_t gmark,
         Slice lkey, Loc lloc, uint32_t lmark, Slice akey, Loc aloc, uint32_t amark)
{
	Launch *l = arena_alloc(p->m->arena, sizeof *l);
	l->loc = kwloc;
	bool ok = is_word(p, kw, kwloc, "launch") && is_word(p, gkey, gloc, "global") &&
	          is_word(p, lkey, lloc, "local") && is_word(p, akey, aloc, "args");
	void **items = scratch_items(p, gmark);
	uint32_t ng = lmark - gmark, nl = amark - lmark, na = scratch_count(p, amark);
	if (ok && (ng != 3 || nl != 3)) {
		parser_error(p, ng != 3 ? gloc : lloc, "launch sizes have 3 axes: [X, Y, Z]");
		ok = false;
	}
	for (uint32_t i = 0; ok && i < 3; i++) {
		l->global[i] = (int64_t)(uintptr_t)items[i];
		l->local[i] = (int64_t)(uintptr_t)items[3 + i];
	}
	l->nargs = na;
	l->args = arena_alloc(p->m->arena, na * sizeof *l->args + 1);
	for (uint32_t i = 0; i < na; i++)
		l->args[i] = items[ng + nl + i];
	scratch_pop(p, gmark);
	return ok ? l : NULL;
}

void
b_launch_arg(Parser *p, Slice name, Loc at)
{
	scratch_push(p, lookup_pvar(p, name, at));
}

void
b_program(Parser *p, Slice kw, Loc at, Slice dev, Loc dloc)
{
	if (!is_word(p, kw, at, "program") || !at_top_level(p, at, "program")) {
		push_cx(p, CX_SKIP, at);
		return;
	}
	Program *pg = arena_alloc(p->m->arena, sizeof *pg);
	pg->dev = intern(p, dev);
	pg->loc = dloc;
	if (p->m->programs_last)
		p->m->programs_last->next = pg;
	else
		p->m->programs = pg;
	p->m->programs_last = pg;
	Cx *c = push_cx(p, CX_PROG, at);
	c->prog = pg;
}

void
b_cline(Parser *p, Slice text, Loc at)
{
	Cx *c = top(p);
	if (!c || c->kind != CX_PROG) {
		if (!c || c->kind != CX_SKIP)
			parser_error(p, at, "a '|' line belongs in a program block");
		return;
	}
	ProgLine *l = arena_alloc(p->m->arena, sizeof *l);
	l->s = arena_strndup(p->m->arena, text.s, text.n);
	l->n = text.n;
	Program *pg = c->prog;
	if (pg->last)
		pg->last->next = l;
	else
		pg->first = l;
	pg->last = l;
	pg->nlines++;
}

PExpr *
b_e_int(Parser *p, IntTok v, Loc at)
{
	PExpr *e = new_expr(p, E_INT, at);
	/* Above INT64_MAX: a u64 or a float (the verifier checks which), or
	 * 2^63 negated right away (-9223372036854775808, b_e_un). */
	bool u64;
	e->u.i = literal_int(p, v, at, &u64);
	if (u64)
		e->op = E_INT_U64;
	return e;
}

PExpr *
b_e_float(Parser *p, double v, Loc at)
{
	PExpr *e = new_expr(p, E_FLOAT, at);
	e->u.f = v;
	return e;
}

PExpr *
b_e_bool(Parser *p, bool v, Loc at)
{
	PExpr *e = new_expr(p, E_BOOL, at);
	e->u.i = v;
	return e;
}

PExpr *
b_e_var(Parser *p, Slice name, Loc at)
{
	PExpr *e = new_expr(p, E_VAR, at);
	e->u.var = lookup_pvar(p, name, at);
	return e;
}

PExpr *
b_e_load(Parser *p, Slice buf, Loc at, uint32_t mark)
{
	PExpr *e = new_expr(p, E_LOAD, at);
	e->u.load.idx = take_indices(p, mark, &e->n);
	for (uint32_t i = 0; i < e->n; i++)
		deepen(p, e, e->u.load.idx[i].e);
	e->u.load.buf = lookup_pvar(p, buf, at);
	return e;
}

PExpr *
b_e_call(Parser *p, Slice fn, Loc at, uint32_t mark)
{
	uint32_t n = scratch_count(p, mark);
	PExpr **args = (PExpr **)scratch_items(p, mark);
	PExpr *e;
	if (fn.n == 6 && memcmp(fn.s, "select", 6) == 0 && n == 3) {
		e = new_expr(p, E_SELECT, at);
		e->u.ops.a = args[0];
		e->u.ops.b = args[1];
		e->u.ops.c = args[2];
	} else if (fn.n == 14 && memcmp(fn.s, "texture2d_load", 14) == 0) {
		if (n != 3 || !args[0] || args[0]->kind != E_VAR) {
			parser_error(p, at, "texture2d_load takes (%%image, x, y)");
			scratch_pop(p, mark);
			return new_expr(p, E_INT, at);
		}
		e = new_expr(p, E_TEX_LOAD, at);
		e->u.tex.buf = args[0]->u.var;
		e->u.tex.x = args[1];
		e->u.tex.y = args[2];
	} else {
		e = new_expr(p, E_CALL, at);
		e->n = n;
		e->op = (uint8_t)intrin_lookup(fn.s, fn.n);   /* I__COUNT: the verifier reports it */
		e->u.call.fn = intern(p, fn);
		e->u.call.args = arena_alloc(p->m->arena, n * sizeof *args + 1);
		scratch_copy(p, mark, e->u.call.args);
	}
	for (uint32_t i = 0; i < n; i++)
		deepen(p, e, args[i]);
	scratch_pop(p, mark);
	return e;
}

PExpr *
b_e_cast(Parser *p, Slice fn, Loc at, Slice ty, Loc tyloc, PExpr *a)
{
	bool bc = fn.n == 9 && memcmp(fn.s, "broadcast", 9) == 0;
	if (!bc && !(fn.n == 4 && memcmp(fn.s, "cast", 4) == 0))
		parser_error(p, at, "'%.*s<...>' is not cast<T> or broadcast<T>", (int)fn.n, fn.s);
	PExpr *e = new_expr(p, bc ? E_BROADCAST : E_CAST, at);
	DType dt = {ET_F32, 1};
	elem_type(p, ty, tyloc, &dt);
	e->u.cast.to = dt;
	e->u.cast.a = a;
	return deepen(p, e, a);
}

PExpr *
b_e_un(Parser *p, int op, PExpr *a, Loc at)
{
	/* "-1" (minus right before the digits) is a literal, so it prints and
	 * re-reads the same; "-(-1)" stays a negation. */
	if (op == OP_NEG && a && (a->kind == E_INT || a->kind == E_FLOAT) && a->loc.line == at.line &&
	    a->loc.col == at.col + 1) {
		if (a->kind == E_INT && a->op == E_INT_U64) {
			/* -2^63 is INT64_MIN, already; below it no type reaches */
			if (a->u.i != INT64_MIN)
				parser_error(p, at, "-%llu is out of the range of i64",
				             (unsigned long long)a->u.i);
			a->op = 0;
		} else if (a->kind == E_INT)
			a->u.i = (int64_t)(0 - (uint64_t)a->u.i);
		else
			a->u.f = -a->u.f;
		a->loc = at;
		return a;
	}
	PExpr *e = new_expr(p, E_UN, at);
	e->op = (uint8_t)op;
	e->u.ops.a = a;
	return deepen(p, e, a);
}

PExpr *
b_e_bin(Parser *p, int op, PExpr *a, PExpr *b, Loc at)
{
	PExpr *e = new_expr(p, E_BIN, at);
	e->op = (uint8_t)op;
	e->u.ops.a = a;
	e->u.ops.b = b;
	deepen(p, e, a);
	return deepen(p, e, b);
}

PIndex *
b_index(Parser *p, PExpr *e, IntTok lanes, Loc at)
{
	PIndex *ix = arena_alloc(p->m->arena, sizeof *ix);
	ix->e = e;
	if (lanes.mag != 0 || lanes.overflow) {
		if (lanes.overflow || (lanes.mag != 2 && lanes.mag != 3 && lanes.mag != 4 &&
		                       lanes.mag != 8 && lanes.mag != 16))
			parser_error(p, at, "vector lanes must be 2, 3, 4, 8 or 16");
		else
			ix->lanes = (uint32_t)lanes.mag;
	}
	return ix;
}

/* ------------------------------------------------------------ entry point */

/* Calls and call_lowered name globals that may be defined later.  A call
 * that names none is poisoned (its callee stays a name). */
static void
resolve_calls(Parser *p)
{
	for (Func *f = p->m->funcs; f; f = f->next) {
		FuncWalk w;
		Block *blk;
		fwalk_start(&w, f);
		for (Value *v; (v = fwalk_next_binding(&w, &blk));) {
			if (v->form != B_CALL && v->form != B_CALL_LOWERED)
				continue;
			Sym name = v->u.ref;
			int kind, want = v->form == B_CALL ? GK_FUNC : GK_PRIM;
			void *g = sym_global(name, &kind);
			if (kind == GK_NONE) {
				parser_error(p, v->loc, "call of undefined %s '@%s'", global_kind_name(want), name);
				v->flags |= VF_ERROR;
			} else if (kind != want) {
				parser_error(p, v->loc, "'@%s' is a %s, not a %s", name, global_kind_name(kind),
				             global_kind_name(want));
				v->flags |= VF_ERROR;
			} else if (want == GK_FUNC) {
				v->u.callee = g;
			} else {
				v->u.prim = g;
			}
		}
	}
}

int irparse(Parser *p);

Module *
ir_parse(Ctx *ctx, uint16_t file, size_t begin, size_t end)
{
	Parser p;
	memset(&p, 0, sizeof p);
	p.ctx = ctx;
	p.m = module_new(ctx);
	p.file = file;
	const char *text = ctx->files[file].text;
	p.cur = text + begin;
	p.lim = text + end;
	/* A --split-input-file chunk starts on a later line; the line table
	 * finds it in O(log lines), and a whole file never builds one. */
	p.line = begin ? src_line_at(ctx, file, begin) : 1;
	p.bol = p.cur;
	p.nl_pending = begin < end && text[end - 1] != '\n';
	int errors_before = ctx->nerrors;

	/* 2: the parse stopped where Bison's stack ran out, said by irerror;
	 * the blocks still open are not the user's mistake. */
	int rc = irparse(&p);

	if (rc != 2 && p.ncx > 0) {
		/* Report the innermost unclosed block: that is where the '}' is missing. */
		Cx *c = top(&p);
		if (c->kind != CX_SKIP) {
			Loc eof = parser_loc(&p, p.lim);
			parser_error(&p, eof, "unexpected end of file: expected '}'");
			note(&p, c->loc, "to close the block opened here");
		}
	}
	/* A definition left open is not checked further. */
	for (uint32_t i = 0; i < p.ncx; i++) {
		if (p.cx[i].kind == CX_FN)
			p.cx[i].fn->flags |= VF_ERROR;
		else if (p.cx[i].kind == CX_PRIM)
			p.cx[i].prim->flags |= VF_ERROR;
	}
	names_close(&p);
	free(p.cx);
	free(p.scratch.v);
	free(p.nums);
	free(p.places);
	ptrvec_free(&p.defs);
	ptrvec_free(&p.dead);
	/* After errors too, so that one run reports every independent error:
	 * what the parser reported is poisoned (VF_ERROR) and the verifier
	 * checks only what does not depend on it.  The builder already
	 * checked that names are unique and defined before use; the verifier
	 * need not hash them all again. */
	resolve_calls(&p);
	bool ok = verify_module(p.m, false);
	if (ctx->nerrors != errors_before || !ok) {
		module_free(p.m);
		return NULL;
	}
	return p.m;
}
