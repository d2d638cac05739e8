__global__ void k(float* y, int n) {
    y[0] = std::max(1.0f, y[1]);
}
