#include <cuda_runtime.h>

#define BLOCK_SIZE 256

// Sigmoid activation: y = 1 / (1 + exp(-x))
__global__ void sigmoid_kernel(const float* __restrict__ input,
                               float* __restrict__ output,
                               int num_elements) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    // expect: CL202
    if (idx <= num_elements) {
        output[idx] = 1.0f / (1.0f + __expf(-input[idx]));
    }
}

void launch_sigmoid(const float* input, float* output, int num_elements) {
    int threads = BLOCK_SIZE;
    int blocks = (num_elements + threads - 1) / threads;
    sigmoid_kernel<<<blocks, threads>>>(input, output, num_elements);
}
