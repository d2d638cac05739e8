__global__ void k(float* y, int n) {
    float a = 1; y[0] = std::move(a);
}
