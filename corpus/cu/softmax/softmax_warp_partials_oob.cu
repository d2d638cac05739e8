#include <cuda_runtime.h>
#include <math.h>

#define BLOCK_SIZE 256
#define WARP_SIZE 32

__device__ __forceinline__ float warp_reduce_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, o));
    return v;
}

__device__ __forceinline__ float warp_reduce_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    return v;
}

// Softmax with warp-shuffle block reductions, one block per row
__global__ void softmax_shfl_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
    __shared__ float s_warp[BLOCK_SIZE / WARP_SIZE];
    __shared__ float s_stat;

    const int tid = threadIdx.x;
    const int lane = tid % WARP_SIZE;
    const int warp = tid / WARP_SIZE;
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;

    float m = -INFINITY;
    for (int j = tid; j < cols; j += BLOCK_SIZE) m = fmaxf(m, xr[j]);
    m = warp_reduce_max(m);
    if (lane == 0) s_warp[warp] = m;
    __syncthreads();
    if (warp == 0) {
        // expect: CL203
        m = s_warp[lane];
        m = warp_reduce_max(m);
        if (lane == 0) s_stat = m;
    }
    __syncthreads();
    const float row_max = s_stat;
    __syncthreads();

    float s = 0.0f;
    for (int j = tid; j < cols; j += BLOCK_SIZE) s += __expf(xr[j] - row_max);
    s = warp_reduce_sum(s);
    if (lane == 0) s_warp[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = (lane < BLOCK_SIZE / WARP_SIZE) ? s_warp[lane] : 0.0f;
        s = warp_reduce_sum(s);
        if (lane == 0) s_stat = s;
    }
    __syncthreads();
    const float inv_sum = 1.0f / s_stat;

    for (int j = tid; j < cols; j += BLOCK_SIZE) yr[j] = __expf(xr[j] - row_max) * inv_sum;
}

void launch_softmax_shfl(const float* x, float* y, int rows, int cols) {
    softmax_shfl_kernel<<<rows, BLOCK_SIZE>>>(x, y, cols);
}
