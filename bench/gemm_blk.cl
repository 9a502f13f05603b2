/* research/perf.md's hand-written blocked GEMM (gemm_blk, with the unroll
 * pragma): C[M,N] = A[M,K] B[K,N], a work item per RM rows x 32 columns,
 * two float16 accumulators per row, global (N/32, M/RM), local 4x4.
 * ocl-bench --vs-cl times it beside the generated dense: the weight
 * buffer (N x K) is read as B (K x N); with square shapes only the
 * speed counts.  Build with -DM=.. -DN=.. -DK=.. -DRM=8. */
__kernel void gemm_blk(__global const float *restrict A, __global const float *restrict B,
                       __global float *restrict C)
{
	int jb = get_global_id(0) * 32, ib = get_global_id(1) * RM;
	float16 c0[RM], c1[RM];
	for (int r = 0; r < RM; r++) {
		c0[r] = (float16)(0.0f);
		c1[r] = (float16)(0.0f);
	}
	for (int k = 0; k < K; k++) {
		float16 b0 = vload16(0, B + k * N + jb), b1 = vload16(0, B + k * N + jb + 16);
		_Pragma("unroll") for (int r = 0; r < RM; r++) {
			float16 a = (float16)(A[(ib + r) * K + k]);
			c0[r] = fma(a, b0, c0[r]);
			c1[r] = fma(a, b1, c1[r]);
		}
	}
	for (int r = 0; r < RM; r++) {
		vstore16(c0[r], 0, C + (ib + r) * N + jb);
		vstore16(c1[r], 0, C + (ib + r) * N + jb + 16);
	}
}
