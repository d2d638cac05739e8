#include <cuda_runtime.h>

#define TILE 16
#define C_IN 64
#define KS 3
#define PATCH (TILE + KS - 1)

// 3x3 conv (padding 1) for C_IN input channels: the whole multi-channel input patch
// is cached in shared memory so every output channel reuses it.
__global__ void conv2d_patch_kernel(const float* __restrict__ x,   // [C_IN, H, W] (single image)
                                    const float* __restrict__ w,   // [C_out, C_IN, 3, 3]
                                    float* __restrict__ y,         // [C_out, H, W]
                                    int H, int W, int C_out) {
    // expect: CL301
    __shared__ float s_patch[C_IN][PATCH][PATCH];

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int ox = blockIdx.x * TILE + tx;
    const int oy = blockIdx.y * TILE + ty;

    for (int c = 0; c < C_IN; ++c) {
        for (int i = ty; i < PATCH; i += TILE) {
            for (int j = tx; j < PATCH; j += TILE) {
                const int gy = blockIdx.y * TILE + i - 1;
                const int gx = blockIdx.x * TILE + j - 1;
                s_patch[c][i][j] = (gy >= 0 && gy < H && gx >= 0 && gx < W) ? x[(c * H + gy) * W + gx] : 0.0f;
            }
        }
    }
    __syncthreads();

    if (ox < W && oy < H) {
        for (int co = 0; co < C_out; ++co) {
            float acc = 0.0f;
            for (int c = 0; c < C_IN; ++c)
                for (int kh = 0; kh < KS; ++kh)
                    for (int kw = 0; kw < KS; ++kw)
                        acc += s_patch[c][ty + kh][tx + kw] * w[((co * C_IN + c) * KS + kh) * KS + kw];
            y[(co * H + oy) * W + ox] = acc;
        }
    }
}

void launch_conv2d_patch(const float* x, const float* w, float* y, int H, int W, int C_out) {
    dim3 block(TILE, TILE);
    dim3 grid((W + TILE - 1) / TILE, (H + TILE - 1) / TILE);
    conv2d_patch_kernel<<<grid, block>>>(x, w, y, H, W, C_out);
}
