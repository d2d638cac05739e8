#include <cuda_runtime.h>

#define THREADS_X 64
#define ROWS_PER_BLOCK 4

// LayerNorm processing several rows per block: threadIdx.y selects the row.
__global__ void layernorm_multirow_kernel(const float* __restrict__ x,
                                          const float* __restrict__ gamma,
                                          const float* __restrict__ beta,
                                          float* __restrict__ y,
                                          int rows, int hidden, float eps) {
    __shared__ float s_sum[ROWS_PER_BLOCK][THREADS_X];
    __shared__ float s_sq[ROWS_PER_BLOCK][THREADS_X];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int row = blockIdx.x * ROWS_PER_BLOCK + ty;
    if (row >= rows) return;

    const float* xr = x + (size_t)row * hidden;
    float* yr = y + (size_t)row * hidden;

    float sum = 0.0f, sq = 0.0f;
    for (int i = tx; i < hidden; i += THREADS_X) {
        const float v = xr[i];
        sum += v;
        sq += v * v;
    }
    s_sum[ty][tx] = sum;
    s_sq[ty][tx] = sq;
    // expect: CL102
    __syncthreads();

    for (int s = THREADS_X / 2; s > 0; s >>= 1) {
        if (tx < s) {
            s_sum[ty][tx] += s_sum[ty][tx + s];
            s_sq[ty][tx] += s_sq[ty][tx + s];
        }
        // expect: CL102
        __syncthreads();
    }

    const float mean = s_sum[ty][0] / hidden;
    const float var = s_sq[ty][0] / hidden - mean * mean;
    const float rstd = rsqrtf(var + eps);

    for (int i = tx; i < hidden; i += THREADS_X) {
        yr[i] = (xr[i] - mean) * rstd * gamma[i] + beta[i];
    }
}

void launch_layernorm_multirow(const float* x, const float* gamma, const float* beta, float* y,
                               int rows, int hidden, float eps) {
    dim3 block(THREADS_X, ROWS_PER_BLOCK);
    dim3 grid((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
    layernorm_multirow_kernel<<<grid, block>>>(x, gamma, beta, y, rows, hidden, eps);
}
