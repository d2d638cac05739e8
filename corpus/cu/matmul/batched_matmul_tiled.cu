#include <cuda_runtime.h>

#define TILE 16

// Batched GEMM: C[b] = A[b] * B[b] for b in [0, batch), batch mapped to gridDim.z.
__global__ void bmm_tiled_kernel(const float* __restrict__ A,
                                 const float* __restrict__ B,
                                 float* __restrict__ C,
                                 int M, int N, int K) {
    __shared__ float sA[TILE][TILE];
    __shared__ float sB[TILE][TILE];

    const int b = blockIdx.z;
    const float* Ab = A + (size_t)b * M * K;
    const float* Bb = B + (size_t)b * K * N;
    float* Cb = C + (size_t)b * M * N;

    const int row = blockIdx.y * TILE + threadIdx.y;
    const int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;

    for (int k0 = 0; k0 < K; k0 += TILE) {
        const int ak = k0 + threadIdx.x;
        const int bk = k0 + threadIdx.y;
        sA[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? Ab[row * K + ak] : 0.0f;
        sB[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? Bb[bk * N + col] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < TILE; ++kk) {
            acc += sA[threadIdx.y][kk] * sB[kk][threadIdx.x];
        }
        __syncthreads();
    }

    if (row < M && col < N) Cb[row * N + col] = acc;
}

void launch_bmm(const float* A, const float* B, float* C, int batch, int M, int N, int K) {
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE, batch);
    bmm_tiled_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
