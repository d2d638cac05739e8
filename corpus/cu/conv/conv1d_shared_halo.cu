#include <cuda_runtime.h>

#define BLOCK_SIZE 256
#define RADIUS 3
#define KSIZE (2 * RADIUS + 1)

__constant__ float c_filter[KSIZE];

// 'same' 1-D convolution with the input tile plus halo cached in shared memory.
__global__ void conv1d_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float tile[BLOCK_SIZE + 2 * RADIUS];

    const int tid = threadIdx.x;
    const int gid = blockIdx.x * BLOCK_SIZE + tid;

    tile[tid + RADIUS] = (gid < n) ? in[gid] : 0.0f;
    if (tid < RADIUS) {
        const int left = gid - RADIUS;
        const int right = gid + BLOCK_SIZE;
        tile[tid] = (left >= 0 && left < n) ? in[left] : 0.0f;
        tile[tid + BLOCK_SIZE + RADIUS] = (right < n) ? in[right] : 0.0f;
    }
    __syncthreads();

    if (gid < n) {
        float sum = 0.0f;
        #pragma unroll
        for (int k = 0; k < KSIZE; ++k) {
            sum += tile[tid + k] * c_filter[k];
        }
        out[gid] = sum;
    }
}

void launch_conv1d_tiled(const float* in, const float* filter_host, float* out, int n) {
    cudaMemcpyToSymbol(c_filter, filter_host, KSIZE * sizeof(float));
    const int blocks = (n + BLOCK_SIZE - 1) / BLOCK_SIZE;
    conv1d_tiled_kernel<<<blocks, BLOCK_SIZE>>>(in, out, n);
}
