#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// LayerNorm over the last dimension: y = (x - mean) / sqrt(var + eps) * gamma + beta
// One block per row, two-pass mean/variance with shared-memory tree reductions.
__global__ void layernorm_kernel(const float* __restrict__ x,
                                 const float* __restrict__ gamma,
                                 const float* __restrict__ beta,
                                 float* __restrict__ y,
                                 int hidden, float eps) {
    __shared__ float s_red[BLOCK_SIZE];
    __shared__ float s_mean;
    __shared__ float s_rstd;

    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    const float* xr = x + (size_t)row * hidden;
    float* yr = y + (size_t)row * hidden;

    float sum = 0.0f;
    for (int i = tid; i < hidden; i += BLOCK_SIZE) sum += xr[i];
    s_red[tid] = sum;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] += s_red[tid + s];
        __syncthreads();
    }
    if (tid == 0) s_mean = s_red[0] / hidden;
    __syncthreads();
    const float mean = s_mean;

    float var = 0.0f;
    for (int i = tid; i < hidden; i += BLOCK_SIZE) {
        const float d = xr[i] - mean;
        var += d * d;
    }
    s_red[tid] = var;
    __syncthreads();
    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) s_red[tid] += s_red[tid + s];
        __syncthreads();
    }
    if (tid == 0) s_rstd = rsqrtf(s_red[0] / hidden + eps);
    __syncthreads();
    const float rstd = s_rstd;

    for (int i = tid; i < hidden; i += BLOCK_SIZE) {
        yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

void launch_layernorm(const float* x, const float* gamma, const float* beta, float* y,
                      int rows, int hidden, float eps) {
    layernorm_kernel<<<rows, BLOCK_SIZE>>>(x, gamma, beta, y, hidden, eps);
}
