#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// LayerNorm computing sum and sum of squares in a single pass.
// Both partial arrays share one shared buffer: [0, BLOCK) sums, [BLOCK, 2*BLOCK) squares.
__global__ void layernorm_fused_stats_kernel(const float* __restrict__ x,
                                             const float* __restrict__ w,
                                             const float* __restrict__ b,
                                             float* __restrict__ y,
                                             int D, float eps) {
    __shared__ float s_buf[BLOCK_SIZE];

    const int tid = threadIdx.x;
    const float* xr = x + (size_t)blockIdx.x * D;
    float* yr = y + (size_t)blockIdx.x * D;

    float sum = 0.0f, sumsq = 0.0f;
    for (int i = tid; i < D; i += BLOCK_SIZE) {
        float v = xr[i];
        sum += v;
        sumsq += v * v;
    }
    s_buf[tid] = sum;
    // expect: CL203
    s_buf[tid + BLOCK_SIZE] = sumsq;
    __syncthreads();

    for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
        if (tid < s) {
            s_buf[tid] += s_buf[tid + s];
            // expect: CL203
            s_buf[tid + BLOCK_SIZE] += s_buf[tid + BLOCK_SIZE + s];
        }
        __syncthreads();
    }

    const float mean = s_buf[0] / D;
    // expect: CL203
    const float var = s_buf[BLOCK_SIZE] / D - mean * mean;
    const float rstd = rsqrtf(var + eps);

    for (int i = tid; i < D; i += BLOCK_SIZE) {
        yr[i] = (xr[i] - mean) * rstd * w[i] + b[i];
    }
}

void launch_layernorm_fused_stats(const float* x, const float* w, const float* b, float* y,
                                  int N, int D, float eps) {
    layernorm_fused_stats_kernel<<<N, BLOCK_SIZE>>>(x, w, b, y, D, eps);
}
