#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define WARP_SIZE 32

// Sum reduction with grid-stride accumulation and warp-shuffle block reduce
__global__ void sum_grid_stride_kernel(const float* __restrict__ data, float* __restrict__ total, int n) {
    __shared__ float warp_partials[BLOCK_SIZE / WARP_SIZE];
    const int tid = threadIdx.x;
    const int lane = tid & (WARP_SIZE - 1);
    const int warp = tid / WARP_SIZE;

    float local = 0.0f;
    // expect: CL202
    for (int i = blockIdx.x * blockDim.x + tid; i <= n; i += gridDim.x * blockDim.x) {
        local += data[i];
    }

    for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
        local += __shfl_down_sync(0xffffffff, local, offset);
    }
    if (lane == 0) warp_partials[warp] = local;
    __syncthreads();

    if (warp == 0) {
        local = (lane < BLOCK_SIZE / WARP_SIZE) ? warp_partials[lane] : 0.0f;
        for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) {
            local += __shfl_down_sync(0xffffffff, local, offset);
        }
        if (lane == 0) atomicAdd(total, local);
    }
}

void launch_sum_grid_stride(const float* data, float* total, int n) {
    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    if (blocks > 2048) blocks = 2048;
    cudaMemset(total, 0, sizeof(float));
    sum_grid_stride_kernel<<<blocks, BLOCK_SIZE>>>(data, total, n);
}
