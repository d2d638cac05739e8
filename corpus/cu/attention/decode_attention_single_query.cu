#include <cuda_runtime.h>
#include <math.h>

#define THREADS 256
#define WARP 32
#define NWARPS (THREADS / WARP)
#define HEAD_DIM 128
#define MAX_CTX 4096

__device__ __forceinline__ float warp_max(float v) {
    for (int o = WARP / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));
    return v;
}
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = WARP / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
    return v;
}

// Decode-step attention: a single new query per (batch, head) against a KV cache of
// ctx_len (<= MAX_CTX) positions. q: [BH, HEAD_DIM], k/v cache: [BH, MAX_CTX, HEAD_DIM].
__global__ void decode_attention_kernel(const float* __restrict__ q,
                                        const float* __restrict__ k_cache,
                                        const float* __restrict__ v_cache,
                                        float* __restrict__ out,
                                        int ctx_len, float scale) {
    __shared__ float s_q[HEAD_DIM];
    __shared__ float s_logits[MAX_CTX];
    __shared__ float s_warp[NWARPS];
    __shared__ float s_bcast;

    const int bh = blockIdx.x;
    const int tid = threadIdx.x;
    const int lane = tid % WARP;
    const int warp = tid / WARP;
    const int n = min(ctx_len, MAX_CTX);
    const float* kb = k_cache + (size_t)bh * MAX_CTX * HEAD_DIM;
    const float* vb = v_cache + (size_t)bh * MAX_CTX * HEAD_DIM;

    for (int d = tid; d < HEAD_DIM; d += THREADS) s_q[d] = q[(size_t)bh * HEAD_DIM + d];
    __syncthreads();

    float m = -INFINITY;
    for (int t = tid; t < n; t += THREADS) {
        float dot = 0.0f;
        for (int d = 0; d < HEAD_DIM; ++d) dot += s_q[d] * kb[(size_t)t * HEAD_DIM + d];
        dot *= scale;
        s_logits[t] = dot;
        m = fmaxf(m, dot);
    }
    m = warp_max(m);
    if (lane == 0) s_warp[warp] = m;
    __syncthreads();
    if (warp == 0) {
        float v = (lane < NWARPS) ? s_warp[lane] : -INFINITY;
        v = warp_max(v);
        if (lane == 0) s_bcast = v;
    }
    __syncthreads();
    m = s_bcast;

    float sum = 0.0f;
    for (int t = tid; t < n; t += THREADS) {
        const float e = __expf(s_logits[t] - m);
        s_logits[t] = e;
        sum += e;
    }
    sum = warp_sum(sum);
    __syncthreads();   // everyone has read s_bcast / s_warp before they are reused
    if (lane == 0) s_warp[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        float v = (lane < NWARPS) ? s_warp[lane] : 0.0f;
        v = warp_sum(v);
        if (lane == 0) s_bcast = v;
    }
    __syncthreads();
    const float inv = 1.0f / s_bcast;

    for (int d = tid; d < HEAD_DIM; d += THREADS) {
        float acc = 0.0f;
        for (int t = 0; t < n; ++t) acc += s_logits[t] * vb[(size_t)t * HEAD_DIM + d];
        out[(size_t)bh * HEAD_DIM + d] = acc * inv;
    }
}

void launch_decode_attention(const float* q, const float* k_cache, const float* v_cache, float* out,
                             int BH, int ctx_len) {
    decode_attention_kernel<<<BH, THREADS>>>(q, k_cache, v_cache, out, ctx_len,
                                             1.0f / sqrtf((float)HEAD_DIM));
}
