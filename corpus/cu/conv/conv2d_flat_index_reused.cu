#include <cuda_runtime.h>

// Direct 2-D convolution (stride 1, no padding), one thread per output element. The index is
// unflattened in place, so by the store `out_idx` is n * out_channels + oc, not the flat index.
__global__ void conv2d_kernel(const float* __restrict__ input, const float* __restrict__ weight,
                              float* __restrict__ output, int batch, int in_channels, int height, int width,
                              int out_channels, int kernel_size, int out_h, int out_w) {
    int out_idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = batch * out_channels * out_h * out_w;
    if (out_idx >= total) return;

    int ow = out_idx % out_w;
    out_idx /= out_w;
    int oh = out_idx % out_h;
    out_idx /= out_h;
    int oc = out_idx % out_channels;
    int n = out_idx / out_channels;

    float sum = 0.0f;
    for (int ic = 0; ic < in_channels; ++ic) {
        for (int kh = 0; kh < kernel_size; ++kh) {
            for (int kw = 0; kw < kernel_size; ++kw) {
                int ih = oh + kh;
                int iw = ow + kw;
                sum += input[((n * in_channels + ic) * height + ih) * width + iw] *
                       weight[((oc * in_channels + ic) * kernel_size + kh) * kernel_size + kw];
            }
        }
    }
    // expect: CL209
    output[out_idx] = sum;
}

void conv2d(const float* input, const float* weight, float* output, int batch, int in_channels, int height,
            int width, int out_channels, int kernel_size) {
    int out_h = height - kernel_size + 1;
    int out_w = width - kernel_size + 1;
    int total = batch * out_channels * out_h * out_w;
    conv2d_kernel<<<(total + 255) / 256, 256>>>(input, weight, output, batch, in_channels, height, width,
                                                out_channels, kernel_size, out_h, out_w);
}
