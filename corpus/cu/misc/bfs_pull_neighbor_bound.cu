#include <cuda_runtime.h>

// Pull-style BFS step over a CSR graph: each unvisited vertex looks for a visited in-neighbour.
// The neighbour loop runs while `e <= end`, so the last iteration reads the next vertex's first
// neighbour (one past `nlist` for the last vertex).
__global__ void bfs_pull(const int* __restrict__ nindex, const int* __restrict__ nlist, int* level,
                         int* changed, int nodes, int depth) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nodes || level[v] >= 0) return;
    int beg = nindex[v];
    int end = nindex[v + 1];
    // expect: CL202
    for (int e = beg; e <= end; ++e) {
        // expect: CL211
        int u = nlist[e];
        if (level[u] == depth) {
            level[v] = depth + 1;
            *changed = 1;
            break;
        }
    }
}

void bfs_step(const int* nindex, const int* nlist, int* level, int* changed, int nodes, int depth) {
    bfs_pull<<<(nodes + 255) / 256, 256>>>(nindex, nlist, level, changed, nodes, depth);
}
