// CL501 pattern: one thread per row, each lane walking its own row (lanes K floats apart).
#include <cuda_runtime.h>

__global__ void case_row_sums(const float* __restrict__ x, float* __restrict__ out, int M, int K) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M) {
        float s = 0.0f;
        for (int k = 0; k < K; ++k) s += x[row * K + k];
        out[row] = s;
    }
}

void launch_case(void* a, void* b, void* c, long long n) {
    int M = (int)n, K = 256;
    case_row_sums<<<(M + 255) / 256, 256>>>((const float*)a, (float*)c, M, K);
}
