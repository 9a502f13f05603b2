/* target.h: what a schedule of ir-lower takes on a kind of device, where
 * a pass before ir-lower prepares data for it: ir-fold-constants packs a
 * constant dense weight in the panels that the cpu dense tile reads, and
 * ir-lower's tile (lib/lower/lower_tile.c) reads them, so both take the
 * panel's width from here.
 */
#ifndef TARGET_H
#define TARGET_H

#include <stdint.h>

/* The largest of cand (in decreasing order, ending with 1) dividing n. */
int64_t target_largest_divisor(int64_t n, const int64_t *cand);

/* The cpu dense tile: RM rows (the largest of target_cpu_dense_rows
 * dividing M) x RN vectors of V columns, where V is the largest of
 * target_dense_lanes and RN of target_cpu_dense_vecs dividing the
 * columns.  16 lanes fill an AVX-512 register. */
extern const int64_t target_dense_lanes[];    /* 16, 8, 4, 2, 1 */
extern const int64_t target_cpu_dense_rows[]; /* 8, 4, 2, 1 */
extern const int64_t target_cpu_dense_vecs[]; /* 2, 1 */

/* The tile's vectors of columns over n columns (a panel's width, or N
 * when it transposes the weight itself): V lanes, RN vectors, so a panel
 * of RN*V columns. */
void target_cpu_dense_panel(int64_t n, int64_t *V, int64_t *RN);

/* The panel width P of the weight [N/P,K,P] (dense's weight_layout
 * "NC<P>n") that the cpu tile reads without a transpose kernel, for a
 * dense of M rows and N units; 0 where the tile does not transpose the
 * weight (fewer rows than a tile: it reads [N,K] as it is). */
int64_t target_cpu_dense_pack(int64_t M, int64_t N);

#endif
