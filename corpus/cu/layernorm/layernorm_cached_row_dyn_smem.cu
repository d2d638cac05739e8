#include <cuda_runtime.h>

#define BLOCK_SIZE 1024
#define HIDDEN 16384

// LayerNorm that caches the whole row in dynamic shared memory so the input is read once.
// HIDDEN floats = 64 KB of shared memory, so the launcher raises the dynamic smem limit.
__global__ void layernorm_cached_kernel(const float* __restrict__ x,
                                        const float* __restrict__ gamma,
                                        const float* __restrict__ beta,
                                        float* __restrict__ y,
                                        float eps) {
    extern __shared__ float s_row[];
    __shared__ float s_red[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * HIDDEN;

    float sum = 0.0f;
    for (int i = tid; i < HIDDEN; i += BLOCK_SIZE) {
        const float v = x[base + i];
        s_row[i] = v;
        sum += v;
    }
    s_red[tid] = sum;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] += s_red[tid + s];
        __syncthreads();
    }
    const float mean = s_red[0] / HIDDEN;
    __syncthreads();

    float sq = 0.0f;
    for (int i = tid; i < HIDDEN; i += BLOCK_SIZE) {
        const float d = s_row[i] - mean;
        sq += d * d;
    }
    s_red[tid] = sq;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] += s_red[tid + s];
        __syncthreads();
    }
    const float rstd = rsqrtf(s_red[0] / HIDDEN + eps);

    for (int i = tid; i < HIDDEN; i += BLOCK_SIZE) {
        y[base + i] = (s_row[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

void launch_layernorm_cached(const float* x, const float* gamma, const float* beta, float* y,
                             int rows, float eps) {
    const size_t smem = HIDDEN * sizeof(float);
    cudaFuncSetAttribute(layernorm_cached_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    layernorm_cached_kernel<<<rows, BLOCK_SIZE, smem>>>(x, gamma, beta, y, eps);
}
