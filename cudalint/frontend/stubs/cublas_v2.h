#pragma once
/* cudalint stub: <cublas_v2.h> (handle API, BLAS levels 1-3 in float and double, half and mixed GEMMs). */
#pragma clang system_header
#include <cuda_runtime.h>
#ifndef __CUDALINT_CUBLAS_V2_H
#define __CUDALINT_CUBLAS_V2_H
#include <cuda_fp16.h>
enum cublasStatus_t { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_INTERNAL_ERROR = 14, CUBLAS_STATUS_NOT_SUPPORTED = 15 };
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 };
enum cublasMath_t { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2, CUBLAS_TF32_TENSOR_OP_MATH = 3 };
enum cublasComputeType_t { CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_16F = 74,
  CUBLAS_COMPUTE_32F_FAST_16BF = 75, CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_32I = 72 };
enum cublasGemmAlgo_t { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99 };
enum cublasPointerMode_t { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 };
enum cublasFillMode_t { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1, CUBLAS_FILL_MODE_FULL = 2 };
enum cublasDiagType_t { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 };
enum cublasSideMode_t { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 };
enum cublasAtomicsMode_t { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 };
typedef struct cublasContext* cublasHandle_t;
typedef struct cublasLtContext* cublasLtHandle_t;
cublasStatus_t cublasCreate(cublasHandle_t* handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t streamId);
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode);
cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode);
const char* cublasGetStatusString(cublasStatus_t status);
#define __CL_CUBLAS_L3(T, P)                                                                                           \
  cublasStatus_t cublas##P##trsm(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,                     \
                                 cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const T* alpha,            \
                                 const T* A, int lda, T* B, int ldb);                                                    \
  cublasStatus_t cublas##P##trmm(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,                     \
                                 cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const T* alpha,            \
                                 const T* A, int lda, const T* B, int ldb, T* C, int ldc);                               \
  cublasStatus_t cublas##P##symm(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo, int m, int n,       \
                                 const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C, int ldc); \
  cublasStatus_t cublas##P##syrk(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k,     \
                                 const T* alpha, const T* A, int lda, const T* beta, T* C, int ldc);
__CL_CUBLAS_L3(float, S) __CL_CUBLAS_L3(double, D)
#undef __CL_CUBLAS_L3
cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode);
cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                           const float* alpha, const float* A, int lda, const float* B, int ldb, const float* beta, float* C, int ldc);
cublasStatus_t cublasDgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                           const double* alpha, const double* A, int lda, const double* B, int ldb, const double* beta, double* C, int ldc);
cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                           const __half* alpha, const __half* A, int lda, const __half* B, int ldb, const __half* beta, __half* C, int ldc);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                         const float* alpha, const float* A, int lda, long long strideA, const float* B, int ldb,
                                         long long strideB, const float* beta, float* C, int ldc, long long strideC, int batchCount);
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                            const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B, cudaDataType Btype, int ldb,
                            const void* beta, void* C, cudaDataType Ctype, int ldc, cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                          const void* alpha, const void* A, cudaDataType Atype, int lda, long long strideA, const void* B,
                                          cudaDataType Btype, int ldb, long long strideB, const void* beta, void* C, cudaDataType Ctype,
                                          int ldc, long long strideC, int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo);
#define __CL_CUBLAS_BLAS12(T, P, p)                                                                                     \
  cublasStatus_t cublasI##p##amax(cublasHandle_t handle, int n, const T* x, int incx, int* result);                    \
  cublasStatus_t cublasI##p##amin(cublasHandle_t handle, int n, const T* x, int incx, int* result);                    \
  cublasStatus_t cublas##P##asum(cublasHandle_t handle, int n, const T* x, int incx, T* result);                       \
  cublasStatus_t cublas##P##axpy(cublasHandle_t handle, int n, const T* alpha, const T* x, int incx, T* y, int incy);  \
  cublasStatus_t cublas##P##copy(cublasHandle_t handle, int n, const T* x, int incx, T* y, int incy);                  \
  cublasStatus_t cublas##P##dot(cublasHandle_t handle, int n, const T* x, int incx, const T* y, int incy, T* result);  \
  cublasStatus_t cublas##P##nrm2(cublasHandle_t handle, int n, const T* x, int incx, T* result);                       \
  cublasStatus_t cublas##P##rot(cublasHandle_t handle, int n, T* x, int incx, T* y, int incy, const T* c, const T* s); \
  cublasStatus_t cublas##P##rotg(cublasHandle_t handle, T* a, T* b, T* c, T* s);                                        \
  cublasStatus_t cublas##P##rotm(cublasHandle_t handle, int n, T* x, int incx, T* y, int incy, const T* param);        \
  cublasStatus_t cublas##P##rotmg(cublasHandle_t handle, T* d1, T* d2, T* x1, const T* y1, T* param);                 \
  cublasStatus_t cublas##P##scal(cublasHandle_t handle, int n, const T* alpha, T* x, int incx);                        \
  cublasStatus_t cublas##P##swap(cublasHandle_t handle, int n, T* x, int incx, T* y, int incy);                        \
  cublasStatus_t cublas##P##gbmv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, int kl, int ku,          \
                                 const T* alpha, const T* A, int lda, const T* x, int incx, const T* beta, T* y,       \
                                 int incy);                                                                            \
  cublasStatus_t cublas##P##gemv(cublasHandle_t handle, cublasOperation_t trans, int m, int n, const T* alpha,          \
                                 const T* A, int lda, const T* x, int incx, const T* beta, T* y, int incy);            \
  cublasStatus_t cublas##P##ger(cublasHandle_t handle, int m, int n, const T* alpha, const T* x, int incx,              \
                                const T* y, int incy, T* A, int lda);                                                  \
  cublasStatus_t cublas##P##sbmv(cublasHandle_t handle, cublasFillMode_t uplo, int n, int k, const T* alpha,           \
                                 const T* A, int lda, const T* x, int incx, const T* beta, T* y, int incy);            \
  cublasStatus_t cublas##P##spmv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T* alpha, const T* AP,     \
                                 const T* x, int incx, const T* beta, T* y, int incy);                                 \
  cublasStatus_t cublas##P##spr(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T* alpha, const T* x,       \
                                int incx, T* AP);                                                                      \
  cublasStatus_t cublas##P##spr2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T* alpha, const T* x,      \
                                 int incx, const T* y, int incy, T* AP);                                               \
  cublasStatus_t cublas##P##symv(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T* alpha, const T* A,      \
                                 int lda, const T* x, int incx, const T* beta, T* y, int incy);                        \
  cublasStatus_t cublas##P##syr(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T* alpha, const T* x,       \
                                int incx, T* A, int lda);                                                              \
  cublasStatus_t cublas##P##syr2(cublasHandle_t handle, cublasFillMode_t uplo, int n, const T* alpha, const T* x,      \
                                 int incx, const T* y, int incy, T* A, int lda);                                       \
  cublasStatus_t cublas##P##tbmv(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,                \
                                 cublasDiagType_t diag, int n, int k, const T* A, int lda, T* x, int incx);            \
  cublasStatus_t cublas##P##tbsv(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,                \
                                 cublasDiagType_t diag, int n, int k, const T* A, int lda, T* x, int incx);            \
  cublasStatus_t cublas##P##tpmv(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,                \
                                 cublasDiagType_t diag, int n, const T* AP, T* x, int incx);                           \
  cublasStatus_t cublas##P##tpsv(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,                \
                                 cublasDiagType_t diag, int n, const T* AP, T* x, int incx);                           \
  cublasStatus_t cublas##P##trmv(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,                \
                                 cublasDiagType_t diag, int n, const T* A, int lda, T* x, int incx);                   \
  cublasStatus_t cublas##P##trsv(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans,                \
                                 cublasDiagType_t diag, int n, const T* A, int lda, T* x, int incx);                   \
  cublasStatus_t cublas##P##gemmBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb,      \
                                        int m, int n, int k, const T* alpha, const T* const Aarray[], int lda,         \
                                        const T* const Barray[], int ldb, const T* beta, T* const Carray[], int ldc,   \
                                        int batchCount);                                                               \
  cublasStatus_t cublas##P##syr2k(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k, \
                                  const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C,       \
                                  int ldc);                                                                            \
  cublasStatus_t cublas##P##syrkx(cublasHandle_t handle, cublasFillMode_t uplo, cublasOperation_t trans, int n, int k, \
                                  const T* alpha, const T* A, int lda, const T* B, int ldb, const T* beta, T* C,       \
                                  int ldc);                                                                            \
  cublasStatus_t cublas##P##geam(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m,      \
                                 int n, const T* alpha, const T* A, int lda, const T* beta, const T* B, int ldb, T* C,  \
                                 int ldc);                                                                             \
  cublasStatus_t cublas##P##dgmm(cublasHandle_t handle, cublasSideMode_t mode, int m, int n, const T* A, int lda,      \
                                 const T* x, int incx, T* C, int ldc);                                                 \
  cublasStatus_t cublas##P##trsmBatched(cublasHandle_t handle, cublasSideMode_t side, cublasFillMode_t uplo,           \
                                        cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const T* alpha,  \
                                        const T* const A[], int lda, T* const B[], int ldb, int batchCount);
__CL_CUBLAS_BLAS12(float, S, s) __CL_CUBLAS_BLAS12(double, D, d)
#undef __CL_CUBLAS_BLAS12
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                         const double* alpha, const double* A, int lda, long long strideA, const double* B, int ldb,
                                         long long strideB, const double* beta, double* C, int ldc, long long strideC, int batchCount);
cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                         const __half* alpha, const __half* A, int lda, long long strideA, const __half* B, int ldb,
                                         long long strideB, const __half* beta, __half* C, int ldc, long long strideC, int batchCount);
cublasStatus_t cublasHgemmBatched(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                  const __half* alpha, const __half* const Aarray[], int lda, const __half* const Barray[], int ldb,
                                  const __half* beta, __half* const Carray[], int ldc, int batchCount);
cublasStatus_t cublasSgemmEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                             const float* alpha, const void* A, cudaDataType Atype, int lda, const void* B, cudaDataType Btype, int ldb,
                             const float* beta, void* C, cudaDataType Ctype, int ldc);
cublasStatus_t cublasGemmBatchedEx(cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n, int k,
                                   const void* alpha, const void* const Aarray[], cudaDataType Atype, int lda, const void* const Barray[],
                                   cudaDataType Btype, int ldb, const void* beta, void* const Carray[], cudaDataType Ctype, int ldc,
                                   int batchCount, cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasGetVersion(cublasHandle_t handle, int* version);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t* streamId);
cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t* mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t* mode);
cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t* mode);
cublasStatus_t cublasSetWorkspace(cublasHandle_t handle, void* workspace, size_t workspaceSizeInBytes);
const char* cublasGetStatusName(cublasStatus_t status);
#endif
