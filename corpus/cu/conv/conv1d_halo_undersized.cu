#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define RADIUS 4
#define FILTER_LEN (2 * RADIUS + 1)

__constant__ float d_filter[FILTER_LEN];

// Smoothing filter (1D stencil) with shared-memory halo
__global__ void stencil1d_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float temp[BLOCK_SIZE + RADIUS];

    const int gindex = blockIdx.x * blockDim.x + threadIdx.x;
    const int lindex = threadIdx.x + RADIUS;

    temp[lindex] = (gindex < n) ? in[gindex] : 0.0f;
    if (threadIdx.x < RADIUS) {
        temp[lindex - RADIUS] = (gindex - RADIUS >= 0 && gindex - RADIUS < n) ? in[gindex - RADIUS] : 0.0f;
        // expect: CL203
        temp[lindex + BLOCK_SIZE] = (gindex + BLOCK_SIZE < n) ? in[gindex + BLOCK_SIZE] : 0.0f;
    }
    __syncthreads();

    if (gindex < n) {
        float result = 0.0f;
        for (int offset = -RADIUS; offset <= RADIUS; ++offset) {
            // expect: CL203
            result += d_filter[offset + RADIUS] * temp[lindex + offset];
        }
        out[gindex] = result;
    }
}

void launch_stencil1d(const float* in, const float* filter, float* out, int n) {
    cudaMemcpyToSymbol(d_filter, filter, FILTER_LEN * sizeof(float));
    int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    stencil1d_kernel<<<blocks, BLOCK_SIZE>>>(in, out, n);
}
