/* target.c: see target.h. */
#include "target.h"

const int64_t target_dense_lanes[] = {16, 8, 4, 2, 1};
const int64_t target_cpu_dense_rows[] = {8, 4, 2, 1};
const int64_t target_cpu_dense_vecs[] = {2, 1};

int64_t
target_largest_divisor(int64_t n, const int64_t *cand)
{
	for (;; cand++)
		if (*cand == 1 || n % *cand == 0)
			return *cand;
}

void
target_cpu_dense_panel(int64_t n, int64_t *V, int64_t *RN)
{
	*V = target_largest_divisor(n, target_dense_lanes);
	*RN = target_largest_divisor(n / *V, target_cpu_dense_vecs);
}

int64_t
target_cpu_dense_pack(int64_t M, int64_t N)
{
	if (M < target_cpu_dense_rows[0] || M <= 0 || N <= 0)
		return 0;
	int64_t V, RN;
	target_cpu_dense_panel(N, &V, &RN);
	return V * RN;
}
