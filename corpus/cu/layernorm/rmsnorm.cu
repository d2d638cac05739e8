#include <cuda_runtime.h>

#define BLOCK_SIZE 512
#define WARP_SIZE 32
#define NUM_WARPS (BLOCK_SIZE / WARP_SIZE)

// RMSNorm: y = x / sqrt(mean(x^2) + eps) * weight
__global__ void rmsnorm_kernel(const float* __restrict__ x,
                               const float* __restrict__ weight,
                               float* __restrict__ y,
                               int hidden, float eps) {
    __shared__ float s_partial[NUM_WARPS];
    __shared__ float s_inv_rms;

    const int tid = threadIdx.x;
    const int lane = tid % WARP_SIZE;
    const int warp = tid / WARP_SIZE;
    const size_t offset = (size_t)blockIdx.x * hidden;

    float ss = 0.0f;
    for (int i = tid; i < hidden; i += BLOCK_SIZE) {
        const float v = x[offset + i];
        ss += v * v;
    }
    for (int o = WARP_SIZE / 2; o > 0; o >>= 1) ss += __shfl_down_sync(0xffffffff, ss, o);
    if (lane == 0) s_partial[warp] = ss;
    __syncthreads();

    if (warp == 0) {
        ss = (lane < NUM_WARPS) ? s_partial[lane] : 0.0f;
        for (int o = WARP_SIZE / 2; o > 0; o >>= 1) ss += __shfl_down_sync(0xffffffff, ss, o);
        if (lane == 0) s_inv_rms = rsqrtf(ss / hidden + eps);
    }
    __syncthreads();

    const float inv_rms = s_inv_rms;
    for (int i = tid; i < hidden; i += BLOCK_SIZE) {
        y[offset + i] = x[offset + i] * inv_rms * weight[i];
    }
}

void launch_rmsnorm(const float* x, const float* weight, float* y, int rows, int hidden, float eps) {
    rmsnorm_kernel<<<rows, BLOCK_SIZE>>>(x, weight, y, hidden, eps);
}
