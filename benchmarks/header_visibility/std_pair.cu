__global__ void k(float* y, int n) {
    std::pair<int, float> p(1, 2.0f); y[0] = p.second;
}
