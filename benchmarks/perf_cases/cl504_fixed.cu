// CL504 fixed twin: the buffer sized to the block (520 bytes), 16 blocks per SM.
#include <cuda_runtime.h>

__global__ void case_smooth(const float* __restrict__ x, float* __restrict__ y, int n) {
    __shared__ float buf[128 + 2];
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
