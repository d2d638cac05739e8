__global__ void k(float* y, int n) {
    y[0] = std::numeric_limits<float>::max();
}
