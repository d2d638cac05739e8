__global__ void k(float* y, int n) {
    std::vector<float> v;
}
