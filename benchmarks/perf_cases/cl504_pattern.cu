// CL504 pattern: 48 KB of static shared memory per 128-thread block, 4 blocks (16 of 64 warps) per SM on sm_90.
#include <cuda_runtime.h>

__global__ void case_smooth(const float* __restrict__ x, float* __restrict__ y, int n) {
    __shared__ float buf[12288];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x + 1] = i < n ? x[i] : 0.0f;
    if (threadIdx.x == 0) buf[0] = i > 0 && i - 1 < n ? x[i - 1] : 0.0f;
    if (threadIdx.x == blockDim.x - 1) buf[blockDim.x + 1] = i + 1 < n ? x[i + 1] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = (buf[threadIdx.x] + buf[threadIdx.x + 1] + buf[threadIdx.x + 2]) * (1.0f / 3.0f);
}

void launch_case(void* a, void* b, void* c, long long n) {
    int size = (int)n;
    case_smooth<<<(size + 127) / 128, 128>>>((const float*)a, (float*)c, size);
}
