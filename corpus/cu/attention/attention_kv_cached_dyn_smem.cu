#include <cuda_runtime.h>
#include <math.h>

#define SEQ 256
#define HDIM 64
#define QUERIES_PER_BLOCK 128

// Attention where each block caches the full K and V of its head in dynamic shared memory
// (2 * 256 * 64 floats = 128 KB) and every thread processes one query with an online softmax.
__global__ void attention_kv_cached_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                                           const float* __restrict__ V, float* __restrict__ O,
                                           float scale) {
    extern __shared__ float smem[];
    float* sK = smem;                 // [SEQ][HDIM]
    float* sV = smem + SEQ * HDIM;    // [SEQ][HDIM]

    const int tid = threadIdx.x;
    const size_t head = (size_t)blockIdx.y * SEQ * HDIM;

    for (int e = tid; e < SEQ * HDIM; e += QUERIES_PER_BLOCK) {
        sK[e] = K[head + e];
        sV[e] = V[head + e];
    }
    __syncthreads();

    const int qi = blockIdx.x * QUERIES_PER_BLOCK + tid;
    if (qi < SEQ) {
        float q[HDIM], acc[HDIM];
        for (int d = 0; d < HDIM; ++d) {
            q[d] = Q[head + qi * HDIM + d] * scale;
            acc[d] = 0.0f;
        }
        float m = -INFINITY, l = 0.0f;
        for (int j = 0; j < SEQ; ++j) {
            float s = 0.0f;
            for (int d = 0; d < HDIM; ++d) s += q[d] * sK[j * HDIM + d];
            const float m_new = fmaxf(m, s);
            const float c = __expf(m - m_new);
            const float p = __expf(s - m_new);
            l = l * c + p;
            for (int d = 0; d < HDIM; ++d) acc[d] = acc[d] * c + p * sV[j * HDIM + d];
            m = m_new;
        }
        for (int d = 0; d < HDIM; ++d) O[head + qi * HDIM + d] = acc[d] / l;
    }
}

void launch_attention_kv_cached(const float* Q, const float* K, const float* V, float* O, int BH) {
    const int smem_bytes = 2 * SEQ * HDIM * sizeof(float);
    cudaFuncSetAttribute(attention_kv_cached_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);
    dim3 grid((SEQ + QUERIES_PER_BLOCK - 1) / QUERIES_PER_BLOCK, BH);
    attention_kv_cached_kernel<<<grid, QUERIES_PER_BLOCK, smem_bytes>>>(Q, K, V, O, 1.0f / sqrtf((float)HDIM));
}
