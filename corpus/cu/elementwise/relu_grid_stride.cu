#include <cuda_runtime.h>

// ReLU activation using a grid-stride loop so that any grid size covers the input.
__global__ void relu_grid_stride_kernel(const float* __restrict__ input,
                                        float* __restrict__ output,
                                        int n) {
    const int stride = blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float v = input[i];
        output[i] = v > 0.0f ? v : 0.0f;
    }
}

void launch_relu(const float* input, float* output, int n) {
    const int threads = 256;
    int blocks = (n + threads - 1) / threads;
    if (blocks > 1024) blocks = 1024;  // cap the grid, the loop handles the rest
    relu_grid_stride_kernel<<<blocks, threads>>>(input, output, n);
}
