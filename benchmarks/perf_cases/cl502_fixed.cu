// CL502 fixed twin: the tile padded by one word, a column spanning all 32 banks.
#include <cuda_runtime.h>
#define TILE 32

__global__ void case_transpose(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    int ox = blockIdx.y * TILE + threadIdx.x;
    int oy = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += 8)
        if (ox < n && oy + j < n) out[(oy + j) * n + ox] = tile[threadIdx.x][threadIdx.y + j];
}

void launch_case(void* a, void* b, void* c, long long n) {
    int size = (int)n;
    dim3 block(TILE, 8), grid((size + TILE - 1) / TILE, (size + TILE - 1) / TILE);
    case_transpose<<<grid, block>>>((const float*)a, (float*)c, size);
}
