#include <cuda_runtime.h>

#define TILE_W 16
#define TILE_H 16

// Direct 2-D convolution, NCHW layout, arbitrary stride/padding.
// gridDim.z enumerates (batch, out_channel) pairs.
__global__ void conv2d_nchw_kernel(const float* __restrict__ input,
                                   const float* __restrict__ weight,
                                   const float* __restrict__ bias,
                                   float* __restrict__ output,
                                   int C_in, int H, int W,
                                   int C_out, int KH, int KW,
                                   int stride, int pad,
                                   int H_out, int W_out) {
    const int ox = blockIdx.x * TILE_W + threadIdx.x;
    const int oy = blockIdx.y * TILE_H + threadIdx.y;
    const int n = blockIdx.z / C_out;
    const int co = blockIdx.z % C_out;

    if (ox < W_out && oy < H_out) {
        float sum = bias != nullptr ? bias[co] : 0.0f;
        for (int ci = 0; ci < C_in; ++ci) {
            for (int kh = 0; kh < KH; ++kh) {
                const int ih = oy * stride - pad + kh;
                if (ih < 0 || ih >= H) continue;
                for (int kw = 0; kw < KW; ++kw) {
                    const int iw = ox * stride - pad + kw;
                    if (iw < 0 || iw >= W) continue;
                    sum += input[(((size_t)n * C_in + ci) * H + ih) * W + iw] *
                           weight[((co * C_in + ci) * KH + kh) * KW + kw];
                }
            }
        }
        output[(((size_t)n * C_out + co) * H_out + oy) * W_out + ox] = sum;
    }
}

void launch_conv2d(const float* input, const float* weight, const float* bias, float* output,
                   int N, int C_in, int H, int W, int C_out, int KH, int KW, int stride, int pad) {
    const int H_out = (H + 2 * pad - KH) / stride + 1;
    const int W_out = (W + 2 * pad - KW) / stride + 1;
    dim3 block(TILE_W, TILE_H);
    dim3 grid((W_out + TILE_W - 1) / TILE_W, (H_out + TILE_H - 1) / TILE_H, N * C_out);
    conv2d_nchw_kernel<<<grid, block>>>(input, weight, bias, output, C_in, H, W, C_out, KH, KW,
                                        stride, pad, H_out, W_out);
}
