#include <cuda_runtime.h>

#define BATCH 128
#define C_IN 64
#define C_OUT 1024
#define H 28
#define W 28
#define KSZ 3
#define H_OUT (H - KSZ + 1)
#define W_OUT (W - KSZ + 1)
#define TILE 16

// Conv2d (NCHW, valid, stride 1) for the fixed problem size of this layer.
// blockIdx.z enumerates (batch, output channel).
__global__ void conv2d_fixed_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                    float* __restrict__ y) {
    const int ox = blockIdx.x * TILE + threadIdx.x;
    const int oy = blockIdx.y * TILE + threadIdx.y;
    const int n = blockIdx.z / C_OUT;
    const int co = blockIdx.z % C_OUT;
    if (ox >= W_OUT || oy >= H_OUT) return;

    float acc = 0.0f;
    for (int ci = 0; ci < C_IN; ++ci)
        for (int kh = 0; kh < KSZ; ++kh)
            for (int kw = 0; kw < KSZ; ++kw)
                acc += x[((n * C_IN + ci) * H + oy + kh) * W + ox + kw] *
                       w[((co * C_IN + ci) * KSZ + kh) * KSZ + kw];
    y[((n * C_OUT + co) * H_OUT + oy) * W_OUT + ox] = acc;
}

void launch_conv2d_fixed(const float* x, const float* w, float* y) {
    dim3 block(TILE, TILE);
    dim3 grid((W_OUT + TILE - 1) / TILE, (H_OUT + TILE - 1) / TILE, BATCH * C_OUT);
    // expect: CL302
    conv2d_fixed_kernel<<<grid, block>>>(x, w, y);
}
