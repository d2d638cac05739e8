#include <cuda_runtime.h>
#include <math.h>

#define BR 64      // queries per block (one thread per query)
#define BC 64      // keys per shared-memory tile
#define D 64       // head dimension

// FlashAttention-style forward pass: K/V tiles are staged in shared memory and an
// online softmax keeps per-query running max / denominator in registers.
// Q, K, V, O: [BH, S, D]; grid = (ceil(S / BR), BH).
__global__ void flash_attn_fwd_kernel(const float* __restrict__ Q,
                                      const float* __restrict__ K,
                                      const float* __restrict__ V,
                                      float* __restrict__ O,
                                      int S, float scale) {
    __shared__ float sK[BC][D];
    __shared__ float sV[BC][D];

    const int tid = threadIdx.x;
    const int qi = blockIdx.x * BR + tid;
    const size_t base = (size_t)blockIdx.y * S * D;

    float q[D], o[D];
    for (int d = 0; d < D; ++d) {
        q[d] = (qi < S) ? Q[base + (size_t)qi * D + d] * scale : 0.0f;
        o[d] = 0.0f;
    }
    float m = -INFINITY;
    float l = 0.0f;

    for (int kv0 = 0; kv0 < S; kv0 += BC) {
        for (int e = tid; e < BC * D; e += BR) {
            const int r = e / D, c = e % D;
            const int kr = kv0 + r;
            sK[r][c] = (kr < S) ? K[base + (size_t)kr * D + c] : 0.0f;
            sV[r][c] = (kr < S) ? V[base + (size_t)kr * D + c] : 0.0f;
        }
        __syncthreads();

        const int kv_len = min(BC, S - kv0);
        for (int j = 0; j < kv_len; ++j) {
            float s = 0.0f;
            for (int d = 0; d < D; ++d) s += q[d] * sK[j][d];
            const float m_new = fmaxf(m, s);
            const float corr = __expf(m - m_new);
            const float p = __expf(s - m_new);
            l = l * corr + p;
            for (int d = 0; d < D; ++d) o[d] = o[d] * corr + p * sV[j][d];
            m = m_new;
        }
        __syncthreads();
    }

    if (qi < S) {
        const float inv_l = 1.0f / l;
        for (int d = 0; d < D; ++d) O[base + (size_t)qi * D + d] = o[d] * inv_l;
    }
}

void launch_flash_attn(const float* Q, const float* K, const float* V, float* O, int BH, int S) {
    dim3 grid((S + BR - 1) / BR, BH);
    const float scale = 1.0f / sqrtf((float)D);
    flash_attn_fwd_kernel<<<grid, BR>>>(Q, K, V, O, S, scale);
}
