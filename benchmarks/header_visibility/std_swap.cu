__global__ void k(float* y, int n) {
    float a = 1, b = 2; std::swap(a, b);
}
