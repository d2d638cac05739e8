#include <cuda_runtime.h>

// 3-point smoothing of a 1-D signal, written in place to save the output allocation: each thread reads
// its two neighbours and overwrites its own element, which its neighbours read.
__global__ void smooth3_inplace_kernel(float* __restrict__ x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n - 1) {
        float v = 0.25f * x[i - 1] + 0.5f * x[i] + 0.25f * x[i + 1];
        // expect: CL107
        x[i] = v;
    }
}

void smooth3(float* x, int n) {
    int threads = 256;
    smooth3_inplace_kernel<<<(n + threads - 1) / threads, threads>>>(x, n);
}
