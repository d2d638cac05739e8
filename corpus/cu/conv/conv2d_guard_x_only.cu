#include <cuda_runtime.h>

#define BLOCK 16

// 2D convolution, single channel, 'valid' padding:
// output[oy][ox] = sum_{kh,kw} input[oy + kh][ox + kw] * kernel[kh][kw]
__global__ void conv2d_valid_kernel(const float* input, const float* kernel, float* output,
                                    int H, int W, int KH, int KW) {
    const int W_out = W - KW + 1;
    const int ox = blockIdx.x * blockDim.x + threadIdx.x;
    const int oy = blockIdx.y * blockDim.y + threadIdx.y;

    if (ox < W_out) {
        float sum = 0.0f;
        for (int kh = 0; kh < KH; ++kh) {
            for (int kw = 0; kw < KW; ++kw) {
                // expect: CL201
                sum += input[(oy + kh) * W + (ox + kw)] * kernel[kh * KW + kw];
            }
        }
        // expect: CL201
        output[oy * W_out + ox] = sum;
    }
}

void launch_conv2d_valid(const float* input, const float* kernel, float* output,
                         int H, int W, int KH, int KW) {
    const int H_out = H - KH + 1;
    const int W_out = W - KW + 1;
    dim3 block(BLOCK, BLOCK);
    dim3 grid((W_out + BLOCK - 1) / BLOCK, (H_out + BLOCK - 1) / BLOCK);
    conv2d_valid_kernel<<<grid, block>>>(input, kernel, output, H, W, KH, KW);
}
