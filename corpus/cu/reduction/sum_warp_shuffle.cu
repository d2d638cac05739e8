#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define WARP_SIZE 32

__device__ __forceinline__ float warp_reduce_sum(float val) {
    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        val += __shfl_down_sync(0xffffffff, val, offset);
    }
    return val;
}

// Block reduction with warp shuffles; block results are combined with atomicAdd.
// *out must be zeroed before the launch.
__global__ void sum_shuffle_kernel(const float* __restrict__ x, float* __restrict__ out, int n) {
    __shared__ float warp_sums[BLOCK_SIZE / WARP_SIZE];

    const int tid = threadIdx.x;
    const int lane = tid % WARP_SIZE;
    const int warp_id = tid / WARP_SIZE;

    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
        sum += x[i];
    }

    sum = warp_reduce_sum(sum);
    if (lane == 0) {
        warp_sums[warp_id] = sum;
    }
    __syncthreads();

    if (warp_id == 0) {
        sum = (lane < BLOCK_SIZE / WARP_SIZE) ? warp_sums[lane] : 0.0f;
        sum = warp_reduce_sum(sum);
        if (lane == 0) {
            atomicAdd(out, sum);
        }
    }
}

void launch_sum_shuffle(const float* x, float* out, int n) {
    const int threads = BLOCK_SIZE;
    int blocks = (n + threads - 1) / threads;
    if (blocks > 1024) blocks = 1024;
    cudaMemset(out, 0, sizeof(float));
    sum_shuffle_kernel<<<blocks, threads>>>(x, out, n);
}
