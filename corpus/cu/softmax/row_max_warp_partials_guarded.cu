#include <cuda_runtime.h>
#include <cfloat>

// Row maximum, one 128-thread block per row: warp shuffles, one partial per warp in shared memory, and
// the first warp reads only the partials the block's 4 warps stored.
__global__ void row_max_kernel(const float* __restrict__ x, float* __restrict__ out, int cols) {
    __shared__ float warp_max[32];
    int tid = threadIdx.x;
    int lane = tid % 32;
    int warp = tid / 32;
    float v = -FLT_MAX;
    for (int c = tid; c < cols; c += blockDim.x) v = fmaxf(v, x[(size_t)blockIdx.x * cols + c]);
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, offset));
    if (lane == 0) warp_max[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = (lane < blockDim.x / 32) ? warp_max[lane] : -FLT_MAX;
        for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, offset));
        if (lane == 0) out[blockIdx.x] = v;
    }
}

void row_max(const float* x, float* out, int rows, int cols) {
    row_max_kernel<<<rows, 128>>>(x, out, cols);
}
