#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define MASK_WIDTH 5
#define HALF_MASK (MASK_WIDTH / 2)

// 1D convolution with shared memory tiling ('same' output size)
__global__ void conv1d_shared_kernel(const float* __restrict__ input,
                                     const float* __restrict__ mask,
                                     float* __restrict__ output,
                                     int width) {
    __shared__ float s_in[BLOCK_SIZE + MASK_WIDTH - 1];

    const int tx = threadIdx.x;
    const int i = blockIdx.x * blockDim.x + tx;

    // interior element
    s_in[tx + HALF_MASK] = (i < width) ? input[i] : 0.0f;

    // halo cells on both sides
    if (tx < HALF_MASK) {
        int li = i - HALF_MASK;
        s_in[tx] = (li >= 0 && li < width) ? input[li] : 0.0f;
    }
    if (tx >= blockDim.x - HALF_MASK) {
        int ri = i + HALF_MASK;
        s_in[tx + 2 * HALF_MASK] = (ri < width) ? input[ri] : 0.0f;
    }

    if (i < width) {
        float result = 0.0f;
        for (int j = 0; j < MASK_WIDTH; ++j) {
            // expect: CL101
            result += s_in[tx + j] * mask[j];
        }
        output[i] = result;
    }
}

void launch_conv1d_shared(const float* input, const float* mask, float* output, int width) {
    int threads = BLOCK_SIZE;
    int blocks = (width + threads - 1) / threads;
    conv1d_shared_kernel<<<blocks, threads>>>(input, mask, output, width);
}
