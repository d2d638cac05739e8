// CL506 pattern: an fp16 matrix product tiled through shared memory, one scalar multiply-add at a time.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#define TILE 16

__global__ void case_hgemm(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int n) {
    __shared__ __half As[TILE][TILE];
    __shared__ __half Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < n && t + threadIdx.x < n) ? A[row * n + t + threadIdx.x] : __float2half(0.0f);
        Bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < n) ? B[(t + threadIdx.y) * n + col] : __float2half(0.0f);
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += __half2float(As[threadIdx.y][k]) * __half2float(Bs[k][threadIdx.x]);
        __syncthreads();
    }
    if (row < n && col < n) C[row * n + col] = acc;
}

void launch_case(void* a, void* b, void* c, long long n) {
    int size = (int)n;
    dim3 block(TILE, TILE), grid((size + TILE - 1) / TILE, (size + TILE - 1) / TILE);
    case_hgemm<<<grid, block>>>((const __half*)a, (const __half*)b, (float*)c, size);
}
