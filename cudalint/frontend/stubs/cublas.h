#pragma once
/* cudalint stub: <cublas.h> */
#pragma clang system_header
#include <cublas_v2.h>
