#include <cuda_runtime.h>

// Mean over the last dimension with one thread per input element: every thread of a row adds its
// scaled element into the row's output with a plain `+=` instead of atomicAdd.
__global__ void mean_last_dim_kernel(const float* __restrict__ x, float* __restrict__ out, int rows, int cols) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= rows * cols) return;
    int row = idx / cols;
    // expect: CL106
    out[row] += x[idx] / (float)cols;
}

void mean_last_dim(const float* x, float* out, int rows, int cols) {
    int total = rows * cols;
    int threads = 256;
    int blocks = (total + threads - 1) / threads;
    mean_last_dim_kernel<<<blocks, threads>>>(x, out, rows, cols);
}
