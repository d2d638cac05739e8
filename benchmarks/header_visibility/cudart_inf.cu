__global__ void k(float* y, int n) {
    y[0] = CUDART_INF_F;
}
