__global__ void k(float* y, int n) {
    printf("%d\n", n);
}
