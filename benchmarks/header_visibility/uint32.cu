__global__ void k(float* y, int n) {
    uint32_t u = 3; y[0] = u;
}
