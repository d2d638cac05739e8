#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <math.h>

namespace cg = cooperative_groups;

#define HEAD_DIM 64
#define THREADS 64          // one thread per head-dim element
#define NUM_SPLITS 32       // blocks, each handles a chunk of the KV cache

// Split-KV ("flash decoding") attention for a single query: each block processes a chunk of
// keys and writes a partial (max, sum, acc); after a grid-wide barrier block 0 merges them.
__global__ void split_kv_decode_kernel(const float* __restrict__ q, const float* __restrict__ k,
                                       const float* __restrict__ v, float* __restrict__ out,
                                       float* part_max, float* part_sum, float* part_acc,
                                       int ctx_len, float scale) {
    cg::grid_group grid = cg::this_grid();
    __shared__ float s_q[HEAD_DIM];
    __shared__ float s_red[THREADS];

    const int d = threadIdx.x;
    const int chunk = (ctx_len + gridDim.x - 1) / gridDim.x;
    const int start = blockIdx.x * chunk;
    const int end = min(start + chunk, ctx_len);

    s_q[d] = q[d];
    __syncthreads();

    float m = -INFINITY, l = 0.0f, acc = 0.0f;
    for (int t = start; t < end; ++t) {
        s_red[d] = s_q[d] * k[t * HEAD_DIM + d];
        __syncthreads();
        for (int s = THREADS / 2; s > 0; s >>= 1) {
            if (d < s) s_red[d] += s_red[d + s];
            __syncthreads();
        }
        const float score = s_red[0] * scale;
        __syncthreads();
        const float m_new = fmaxf(m, score);
        const float c = __expf(m - m_new);
        const float p = __expf(score - m_new);
        l = l * c + p;
        acc = acc * c + p * v[t * HEAD_DIM + d];
        m = m_new;
    }
    part_acc[blockIdx.x * HEAD_DIM + d] = acc;
    if (d == 0) {
        part_max[blockIdx.x] = m;
        part_sum[blockIdx.x] = l;
    }

    // expect: CL104
    grid.sync();

    if (blockIdx.x == 0) {
        float gm = -INFINITY;
        for (int b = 0; b < gridDim.x; ++b) gm = fmaxf(gm, part_max[b]);
        float gl = 0.0f, ga = 0.0f;
        for (int b = 0; b < gridDim.x; ++b) {
            if (part_max[b] == -INFINITY) continue;
            const float w = __expf(part_max[b] - gm);
            gl += part_sum[b] * w;
            ga += part_acc[b * HEAD_DIM + d] * w;
        }
        out[d] = ga / gl;
    }
}

void launch_split_kv_decode(const float* q, const float* k, const float* v, float* out,
                            float* part_max, float* part_sum, float* part_acc, int ctx_len) {
    const float scale = 1.0f / sqrtf((float)HEAD_DIM);
    split_kv_decode_kernel<<<NUM_SPLITS, THREADS>>>(q, k, v, out, part_max, part_sum, part_acc,
                                                   ctx_len, scale);
}
