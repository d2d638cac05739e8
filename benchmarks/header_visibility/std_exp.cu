__global__ void k(float* y, int n) {
    y[0] = std::exp(y[1]);
}
