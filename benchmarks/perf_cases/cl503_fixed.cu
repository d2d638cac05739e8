// CL503 fixed twin: 256-thread blocks.
#include <cuda_runtime.h>

__global__ void case_axpb(const float* __restrict__ x, float* __restrict__ y, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}

void launch_case(void* a, void* b, void* c, long long n) {
    int size = (int)n;
    case_axpb<<<(size + 255) / 256, 256>>>((const float*)a, (float*)c, 2.0f, 1.0f, size);
}
