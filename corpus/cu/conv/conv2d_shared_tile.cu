#include <cuda_runtime.h>

#define TILE 16
#define KS 3
#define R (KS / 2)
#define SM (TILE + KS - 1)

__constant__ float c_kernel[KS][KS];

// 3x3 'same' 2-D convolution of a single-channel image using a shared-memory tile with halo.
__global__ void conv2d_tiled_kernel(const float* __restrict__ img, float* __restrict__ out, int H, int W) {
    __shared__ float s_tile[SM][SM];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int ox = blockIdx.x * TILE + tx;
    const int oy = blockIdx.y * TILE + ty;

    // cooperative load of the (TILE + 2R)^2 input patch
    for (int i = ty; i < SM; i += TILE) {
        for (int j = tx; j < SM; j += TILE) {
            const int gy = blockIdx.y * TILE + i - R;
            const int gx = blockIdx.x * TILE + j - R;
            s_tile[i][j] = (gy >= 0 && gy < H && gx >= 0 && gx < W) ? img[gy * W + gx] : 0.0f;
        }
    }
    __syncthreads();

    if (oy < H && ox < W) {
        float acc = 0.0f;
        #pragma unroll
        for (int kh = 0; kh < KS; ++kh)
            #pragma unroll
            for (int kw = 0; kw < KS; ++kw)
                acc += s_tile[ty + kh][tx + kw] * c_kernel[kh][kw];
        out[oy * W + ox] = acc;
    }
}

void launch_conv2d_tiled(const float* img, const float* kernel_host, float* out, int H, int W) {
    cudaMemcpyToSymbol(c_kernel, kernel_host, KS * KS * sizeof(float));
    dim3 block(TILE, TILE);
    dim3 grid((W + TILE - 1) / TILE, (H + TILE - 1) / TILE);
    conv2d_tiled_kernel<<<grid, block>>>(img, out, H, W);
}
