__global__ void k(float* y, int n) {
    n = INT_MAX;
}
