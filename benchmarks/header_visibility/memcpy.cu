__global__ void k(float* y, int n) {
    memcpy(y, y + 1, 4);
}
