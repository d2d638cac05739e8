#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define WARP_SIZE 32

// WMMA GEMM: each warp computes a 16x16 output tile (M, N, K multiples of 16)
__global__ void tensor_core_gemm_kernel(const half* A, const half* B, float* C, int M, int N, int K) {
    int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    int warpN = blockIdx.y * blockDim.y + threadIdx.y;

    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b_frag;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c_frag;
    wmma::fill_fragment(c_frag, 0.0f);

    int aRow = warpM * 16;
    int bCol = warpN * 16;
    for (int k = 0; k < K; k += 16) {
        // expect: CL201
        wmma::load_matrix_sync(a_frag, A + aRow * K + k, K);
        // expect: CL201
        wmma::load_matrix_sync(b_frag, B + k * N + bCol, N);
        wmma::mma_sync(c_frag, a_frag, b_frag, c_frag);
    }

    // expect: CL201
    wmma::store_matrix_sync(C + aRow * N + bCol, c_frag, N, wmma::mem_row_major);
}

void launch_tensor_core_gemm(const half* A, const half* B, float* C, int M, int N, int K) {
    dim3 block(128, 4);  // 16 warps: 4 along M, 4 along N
    dim3 grid((M + 64 - 1) / 64, (N + 64 - 1) / 64);
    tensor_core_gemm_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
