#include <cuda_runtime.h>
#include <math.h>

// Row max, one block per row: a strided pass into a register, then a tree that stores each step's
// partial back, so the next step reads partials over twice as many elements.
__global__ void row_max_kernel(const float* x, float* out, int cols) {
    __shared__ float partial[256];
    int tid = threadIdx.x;
    float m = -INFINITY;
    for (int c = tid; c < cols; c += blockDim.x) m = fmaxf(m, x[blockIdx.x * cols + c]);
    partial[tid] = m;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            float other = partial[tid + stride];
            m = fmaxf(m, other);
            partial[tid] = m;
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = m;
}

void row_max(const float* x, float* out, int rows, int cols) {
    row_max_kernel<<<rows, 256>>>(x, out, cols);
}
