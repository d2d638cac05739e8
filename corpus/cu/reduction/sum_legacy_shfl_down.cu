#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define WARP_SIZE 32

__inline__ __device__ float warpReduceSum(float val) {
    for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
        // expect: CL103
        val += __shfl_down(val, offset);
    }
    return val;
}

__global__ void sum_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float shared[WARP_SIZE];
    const int lane = threadIdx.x % WARP_SIZE;
    const int wid = threadIdx.x / WARP_SIZE;

    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        sum += in[i];
    }

    sum = warpReduceSum(sum);
    if (lane == 0) shared[wid] = sum;
    __syncthreads();

    sum = (threadIdx.x < blockDim.x / WARP_SIZE) ? shared[lane] : 0.0f;
    if (wid == 0) {
        sum = warpReduceSum(sum);
        if (lane == 0) atomicAdd(out, sum);
    }
}

void launch_sum(const float* in, float* out, int n) {
    int threads = BLOCK_SIZE;
    int blocks = min((n + threads - 1) / threads, 1024);
    cudaMemset(out, 0, sizeof(float));
    sum_kernel<<<blocks, threads>>>(in, out, n);
}
