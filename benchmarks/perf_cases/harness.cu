// The timing driver every perf case links with: `case_binary N BYTES REPS`.
// Allocates three buffers of BYTES bytes (a and b filled with the byte 0x3C: 0.0115f as float, 1.06 as
// half; c zeroed), calls the case's launch_case(a, b, c, N) once and checks for errors. With REPS = 0 it
// stops there (the profiler's run: one launch); otherwise it launches twice more to warm up, then REPS
// times, each timed with CUDA events after a 256 MB memset that flushes the L2 cache, and prints
// {"ms": mean, "min_ms": fastest, "reps": REPS} on one line.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

void launch_case(void* a, void* b, void* c, long long n);

static int check(cudaError_t status, const char* what) {
    if (status != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
        return 1;
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s N BYTES REPS\n", argv[0]);
        return 2;
    }
    long long n = std::atoll(argv[1]);
    size_t bytes = (size_t)std::atoll(argv[2]);
    int reps = std::atoi(argv[3]);
    const size_t flush_bytes = (size_t)256 << 20;
    void *a, *b, *c, *flush;
    if (check(cudaMalloc(&a, bytes), "cudaMalloc") || check(cudaMalloc(&b, bytes), "cudaMalloc") ||
        check(cudaMalloc(&c, bytes), "cudaMalloc") || check(cudaMalloc(&flush, flush_bytes), "cudaMalloc"))
        return 1;
    cudaMemset(a, 0x3C, bytes);
    cudaMemset(b, 0x3C, bytes);
    cudaMemset(c, 0, bytes);
    launch_case(a, b, c, n);
    if (check(cudaGetLastError(), "launch") || check(cudaDeviceSynchronize(), "run")) return 1;
    if (reps == 0) return 0;
    for (int i = 0; i < 2; ++i) launch_case(a, b, c, n);
    cudaEvent_t start, stop;
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    double total = 0.0, best = 1e30;
    for (int r = 0; r < reps; ++r) {
        cudaMemset(flush, r & 0xFF, flush_bytes);
        cudaEventRecord(start);
        launch_case(a, b, c, n);
        cudaEventRecord(stop);
        cudaEventSynchronize(stop);
        float ms = 0.0f;
        cudaEventElapsedTime(&ms, start, stop);
        total += ms;
        best = ms < best ? ms : best;
    }
    if (check(cudaGetLastError(), "timed runs")) return 1;
    std::printf("{\"ms\": %.6f, \"min_ms\": %.6f, \"reps\": %d}\n", total / reps, best, reps);
    return 0;
}
