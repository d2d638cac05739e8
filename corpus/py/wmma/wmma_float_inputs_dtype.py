import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

tc_gemm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

__global__ void tc_gemm_kernel(const half* a, const half* b, float* c, int M, int N, int K) {
    int warp_m = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int warp_n = blockIdx.y * blockDim.y + threadIdx.y;
    int row = warp_m * 16;
    int col = warp_n * 16;
    if (row >= M || col >= N) return;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::fill_fragment(fc, 0.0f);
    for (int k = 0; k < K; k += 16) {
        wmma::load_matrix_sync(fa, a + row * K + k, K);
        wmma::load_matrix_sync(fb, b + k * N + col, N);
        wmma::mma_sync(fc, fa, fb, fc);
    }
    wmma::store_matrix_sync(c + row * N + col, fc, N, wmma::mem_row_major);
}

torch::Tensor tc_gemm_cuda(torch::Tensor A, torch::Tensor B) {
    int M = A.size(0), K = A.size(1), N = B.size(1);
    auto C = torch::empty({M, N}, A.options());
    dim3 block(64, 2);
    dim3 grid((M + 31) / 32, (N + 31) / 32);
    tc_gemm_kernel<<<grid, block>>>(
        // expect: CL206
        reinterpret_cast<const half*>(A.data_ptr<float>()),
        // expect: CL206
        reinterpret_cast<const half*>(B.data_ptr<float>()),
        C.data_ptr<float>(), M, N, K);
    return C;
}
"""

tc_gemm_cpp = "torch::Tensor tc_gemm_cuda(torch::Tensor A, torch::Tensor B);"

tc_gemm = load_inline(
    name="tc_gemm_float_inputs",
    cpp_sources=tc_gemm_cpp,
    cuda_sources=tc_gemm_source,
    functions=["tc_gemm_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.tc_gemm = tc_gemm

    def forward(self, A, B):
        return self.tc_gemm.tc_gemm_cuda(A.contiguous(), B.contiguous())
