#include <cuda_runtime.h>
#include <math.h>

// Row max, one block per row: a strided pass into a register, then a "tree" that folds the neighbour's
// element into the register without ever storing it back, so thread 0 misses most partials.
__global__ void row_max_kernel(const float* x, float* out, int cols) {
    __shared__ float partial[256];
    int tid = threadIdx.x;
    float m = -INFINITY;
    for (int c = tid; c < cols; c += blockDim.x) m = fmaxf(m, x[blockIdx.x * cols + c]);
    partial[tid] = m;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            // expect: CL213
            float other = partial[tid + stride];
            m = fmaxf(m, other);
        }
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = m;
}

void row_max(const float* x, float* out, int rows, int cols) {
    row_max_kernel<<<rows, 256>>>(x, out, cols);
}
