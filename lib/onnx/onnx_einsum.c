/* onnx_einsum.c: Einsum where it is a batched matrix product, as
 * torchvision's maxvit writes its attention ("BGHID,BGHJD->BGHIJ",
 * "BGHIJ,BGHJD->BGHID"): two operands whose axes but the last two are the
 * same batch axes, in the output too, and whose last two hold the output's
 * rows i, its columns j and one summed axis k.  Each operand's last two
 * axes are transposed where needed to [i,k] and [k,j], and the product is
 * MatMul's.  Other equations are refused.
 */
#include <ctype.h>
#include <string.h>

#include "onnx_impl.h"

/* The labels of one term (letters; spaces skipped) up to a ',' or '-' or
 * the end; the count, or -1 for anything else ('...', other bytes). */
static int
term(const char **p, char *lab, int max)
{
	int n = 0;
	for (; **p && **p != ',' && **p != '-'; (*p)++) {
		if (**p == ' ')
			continue;
		if (!isalpha((unsigned char)**p) || n == max)
			return -1;
		lab[n++] = **p;
	}
	return n;
}

bool
onnx_map_einsum(Imp *im, const Onnx__NodeProto *n, Val **in, size_t nin, Val **out, size_t nout)
{
	char eqb[256];
	const char *eq = onnx_attr_str(n, "equation", "", eqb, sizeof eqb);
	char a[MAX_RANK], b[MAX_RANK], o[MAX_RANK];
	const char *p = eq;
	int na = term(&p, a, MAX_RANK), nb = -1, no = -1;
	if (na >= 0 && *p == ',') {
		p++;
		nb = term(&p, b, MAX_RANK);
		if (nb >= 0 && p[0] == '-' && p[1] == '>') {
			p += 2;
			no = term(&p, o, MAX_RANK);
		}
	}
	bool ok = nin == 2 && in[0] && in[1] && na >= 2 && na == nb && na == no && !*p &&
	          (uint32_t)na == in[0]->rank && (uint32_t)nb == in[1]->rank;
	for (int i = 0; ok && i < na - 2; i++)
		ok = a[i] == b[i] && a[i] == o[i];
	/* the last two: i and k in a, k and j in b, i and j in the output
	 * (read only once the terms are known to have them) */
	char oi = 0, oj = 0, k = 0;
	const char *at = a, *bt = b;
	if (ok) {
		oi = o[na - 2], oj = o[na - 1];
		at = a + na - 2, bt = b + na - 2;
		k = at[0] == oi ? at[1] : at[0];
		ok = oi != oj && k != oi && k != oj && (at[0] == oi || at[1] == oi) &&
		     (bt[0] == k || bt[1] == k) && (bt[0] == oj || bt[1] == oj);
	}
	for (int i = 0; ok && i < na - 2; i++)
		ok = a[i] != oi && a[i] != oj && a[i] != k;
	if (!ok)
		return onnx_fail(im, "equation '%s' is not supported: only batched matrix products "
		                 "(two operands, the same leading axes in both and in the result)", eq),
		       false;
	int64_t perm[MAX_RANK];
	for (int i = 0; i < na; i++)
		perm[i] = i;
	perm[na - 2] = na - 1, perm[na - 1] = na - 2;
	Val *x = in[0], *y = in[1];
	if (at[0] != oi && !(x = onnx_op_transpose(im, x, perm, "lhs")))
		return false;
	if (bt[0] != k && !(y = onnx_op_transpose(im, y, perm, "rhs")))
		return false;
	Val *mm[2] = {x, y};
	return onnx_map_matmul(im, n, mm, 2, out, nout);
}
