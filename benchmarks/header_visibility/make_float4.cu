__global__ void k(float* y, int n) {
    float4 v = make_float4(1, 2, 3, 4); y[0] = v.x;
}
