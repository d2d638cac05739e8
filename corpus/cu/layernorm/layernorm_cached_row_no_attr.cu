#include <cuda_runtime.h>

#define BLOCK_SIZE 512
#define HIDDEN 16384

// LayerNorm with the row cached in shared memory (read global memory once)
__global__ void layernorm_smem_kernel(const float* __restrict__ x,
                                      const float* __restrict__ gamma,
                                      const float* __restrict__ beta,
                                      float* __restrict__ y,
                                      float eps) {
    extern __shared__ float smem[];   // HIDDEN floats for the row
    __shared__ float red[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * HIDDEN;

    float s = 0.0f;
    for (int i = tid; i < HIDDEN; i += BLOCK_SIZE) {
        smem[i] = x[base + i];
        s += smem[i];
    }
    red[tid] = s;
    __syncthreads();
    for (int k = BLOCK_SIZE / 2; k > 0; k >>= 1) {
        if (tid < k) red[tid] += red[tid + k];
        __syncthreads();
    }
    const float mean = red[0] / HIDDEN;
    __syncthreads();

    float v = 0.0f;
    for (int i = tid; i < HIDDEN; i += BLOCK_SIZE) {
        float d = smem[i] - mean;
        v += d * d;
    }
    red[tid] = v;
    __syncthreads();
    for (int k = BLOCK_SIZE / 2; k > 0; k >>= 1) {
        if (tid < k) red[tid] += red[tid + k];
        __syncthreads();
    }
    const float rstd = rsqrtf(red[0] / HIDDEN + eps);

    for (int i = tid; i < HIDDEN; i += BLOCK_SIZE) {
        y[base + i] = (smem[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

void launch_layernorm_smem(const float* x, const float* gamma, const float* beta, float* y,
                           int rows, float eps) {
    size_t shared_bytes = HIDDEN * sizeof(float);
    // expect: CL301
    layernorm_smem_kernel<<<rows, BLOCK_SIZE, shared_bytes>>>(x, gamma, beta, y, eps);
}
