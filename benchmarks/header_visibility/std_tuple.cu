__global__ void k(float* y, int n) {
    std::tuple<int, float> t(1, 2.0f); y[0] = std::get<1>(t);
}
