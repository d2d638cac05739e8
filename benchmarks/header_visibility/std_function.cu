__global__ void k(float* y, int n) {
    std::function<float(float)> f;
}
