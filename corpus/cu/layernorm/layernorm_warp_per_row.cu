#include <cuda_runtime.h>

#define WARP_SIZE 32
#define ROWS_PER_BLOCK 4

__device__ __forceinline__ float warp_allreduce_sum(float v) {
    #pragma unroll
    for (int mask = WARP_SIZE / 2; mask > 0; mask >>= 1) {
        v += __shfl_xor_sync(0xffffffff, v, mask);
    }
    return v;
}

// LayerNorm for moderate hidden sizes: one warp per row, Welford-free two-pass in registers.
__global__ void layernorm_warp_kernel(const float* __restrict__ input,
                                      const float* __restrict__ weight,
                                      const float* __restrict__ bias,
                                      float* __restrict__ output,
                                      int rows, int hidden, float eps) {
    const int lane = threadIdx.x;                 // blockDim.x == 32
    const int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.y;
    if (row >= rows) return;

    const float* in = input + (size_t)row * hidden;
    float* out = output + (size_t)row * hidden;

    float sum = 0.0f;
    for (int i = lane; i < hidden; i += WARP_SIZE) sum += in[i];
    const float mean = warp_allreduce_sum(sum) / hidden;

    float sq = 0.0f;
    for (int i = lane; i < hidden; i += WARP_SIZE) {
        const float d = in[i] - mean;
        sq += d * d;
    }
    const float rstd = rsqrtf(warp_allreduce_sum(sq) / hidden + eps);

    for (int i = lane; i < hidden; i += WARP_SIZE) {
        out[i] = (in[i] - mean) * rstd * weight[i] + bias[i];
    }
}

void launch_layernorm_warp(const float* input, const float* weight, const float* bias,
                           float* output, int rows, int hidden, float eps) {
    dim3 block(WARP_SIZE, ROWS_PER_BLOCK);
    dim3 grid((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    layernorm_warp_kernel<<<grid, block>>>(input, weight, bias, output, rows, hidden, eps);
}
