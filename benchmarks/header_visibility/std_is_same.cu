__global__ void k(float* y, int n) {
    static_assert(std::is_same<float, float>::value, "");
}
