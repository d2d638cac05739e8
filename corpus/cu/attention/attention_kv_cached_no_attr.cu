#include <cuda_runtime.h>
#include <math.h>

#define SEQ_LEN 256
#define HEAD_DIM 64
#define THREADS 128

// Self-attention: each block loads the whole K and V of one head into shared memory once,
// then every thread handles one query.
__global__ void attention_smem_kv_kernel(const float* __restrict__ Q, const float* __restrict__ K,
                                         const float* __restrict__ V, float* __restrict__ O, float scale) {
    extern __shared__ float shmem[];
    float* k_s = shmem;
    float* v_s = shmem + SEQ_LEN * HEAD_DIM;

    const size_t head_off = (size_t)blockIdx.y * SEQ_LEN * HEAD_DIM;
    for (int i = threadIdx.x; i < SEQ_LEN * HEAD_DIM; i += blockDim.x) {
        k_s[i] = K[head_off + i];
        v_s[i] = V[head_off + i];
    }

    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < SEQ_LEN) {
        float qv[HEAD_DIM], o[HEAD_DIM];
        for (int d = 0; d < HEAD_DIM; ++d) { qv[d] = Q[head_off + row * HEAD_DIM + d]; o[d] = 0.0f; }
        float mx = -INFINITY, den = 0.0f;
        for (int j = 0; j < SEQ_LEN; ++j) {
            float s = 0.0f;
            for (int d = 0; d < HEAD_DIM; ++d) {
                // expect: CL101
                s += qv[d] * k_s[j * HEAD_DIM + d];
            }
            s *= scale;
            float nm = fmaxf(mx, s);
            float a = __expf(mx - nm), p = __expf(s - nm);
            den = den * a + p;
            for (int d = 0; d < HEAD_DIM; ++d) {
                // expect: CL101
                o[d] = o[d] * a + p * v_s[j * HEAD_DIM + d];
            }
            mx = nm;
        }
        for (int d = 0; d < HEAD_DIM; ++d) O[head_off + row * HEAD_DIM + d] = o[d] / den;
    }
}

void launch_attention_smem_kv(const float* Q, const float* K, const float* V, float* O, int BH) {
    size_t smem = 2 * SEQ_LEN * HEAD_DIM * sizeof(float);
    dim3 grid((SEQ_LEN + THREADS - 1) / THREADS, BH);
    // expect: CL301
    attention_smem_kv_kernel<<<grid, THREADS, smem>>>(Q, K, V, O, 1.0f / sqrtf((float)HEAD_DIM));
}
