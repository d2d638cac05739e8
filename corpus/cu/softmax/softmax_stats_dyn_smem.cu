#include <cuda_runtime.h>
#include <math.h>

#define THREADS 256

// Row softmax, one block per row; the running max and the running sum of each thread are reduced in
// two arrays carved out of one dynamic shared-memory buffer
__global__ void softmax_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    extern __shared__ float smem[];
    float* s_max = smem;
    float* s_sum = smem + blockDim.x;

    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    const float* xr = x + (size_t)row * cols;

    float m = -INFINITY;
    for (int c = tid; c < cols; c += blockDim.x) m = fmaxf(m, xr[c]);
    s_max[tid] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) s_max[tid] = fmaxf(s_max[tid], s_max[tid + s]);
        __syncthreads();
    }
    m = s_max[0];

    float sum = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) sum += __expf(xr[c] - m);
    s_sum[tid] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) s_sum[tid] += s_sum[tid + s];
        __syncthreads();
    }
    const float inv = 1.0f / s_sum[0];
    for (int c = tid; c < cols; c += blockDim.x) y[(size_t)row * cols + c] = __expf(xr[c] - m) * inv;
}

void launch_softmax_rows(const float* x, float* y, int rows, int cols) {
    size_t smem = 2 * THREADS * sizeof(float);  // s_max and s_sum
    softmax_rows_kernel<<<rows, THREADS, smem>>>(x, y, cols);
}
