#pragma once
/* cudalint stub: the parts of libtorch (c10 / ATen / torch / pybind11) that torch.utils.cpp_extension sources use.
 * Host API only as loose as keeps parsing fast; c10::Half/BFloat16 arithmetic, TORCH_CHECK, the AT_DISPATCH_*
 * macros (defining scalar_t per case like the real ones) and tensor accessors follow the real semantics. */
#pragma clang system_header
#ifndef __CUDALINT_TORCH_H
#define __CUDALINT_TORCH_H
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h> /* c10/util/complex.h's <cuda/std/complex> brings it since CUDA 13 */
#include <__cudalint/std_lib.h>
#include <cublas_v2.h>

#define C10_HOST_DEVICE __host__ __device__
#define C10_DEVICE __device__
#define C10_HOST __host__
#define C10_API
#define C10_EXPORT
#define TORCH_API
#define TORCH_CUDA_CPP_API
#define TORCH_CUDA_CU_API
#define C10_UNUSED __attribute__((__unused__))
#define C10_NODISCARD [[nodiscard]]
#define C10_NORETURN __attribute__((noreturn))
#define C10_LIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 1))
#define C10_UNLIKELY(expr) (__builtin_expect(static_cast<bool>(expr), 0))
#define C10_ALWAYS_INLINE inline __attribute__((__always_inline__))
#define C10_RESTRICT __restrict
#define C10_DEPRECATED
#define C10_DEPRECATED_MESSAGE(message)
#define C10_WARP_SIZE 32
#define C10_STRINGIZE(x) #x
#define CUDA_MAX_THREADS_PER_BLOCK 1024
#define CUDA_THREADS_PER_BLOCK_FALLBACK 256
#define C10_MAX_THREADS_PER_BLOCK(val) (((val) <= CUDA_MAX_THREADS_PER_BLOCK) ? (val) : CUDA_THREADS_PER_BLOCK_FALLBACK)
#define C10_MIN_BLOCKS_PER_SM(threads_per_block, blocks_per_sm) \
  ((((threads_per_block) * (blocks_per_sm) <= 2048) ? (blocks_per_sm) : ((2048 + (threads_per_block) - 1) / (threads_per_block))))
#define C10_LAUNCH_BOUNDS_0 __launch_bounds__(256, 4)
#define C10_LAUNCH_BOUNDS_1(max_threads_per_block) __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))))
#define C10_LAUNCH_BOUNDS_2(max_threads_per_block, min_blocks_per_sm) \
  __launch_bounds__((C10_MAX_THREADS_PER_BLOCK((max_threads_per_block))), (C10_MIN_BLOCKS_PER_SM((max_threads_per_block), (min_blocks_per_sm))))
#ifndef TORCH_EXTENSION_NAME
#define TORCH_EXTENSION_NAME cudalint_extension
#endif

namespace c10 {
using std::optional;
using std::nullopt;
using std::nullopt_t;
using std::make_optional;
using std::string_view;
typedef int8_t DeviceIndex;
typedef int64_t StreamId;

/* ---- c10::Half / c10::BFloat16 ---- */
struct alignas(2) Half {
  unsigned short x;
  struct from_bits_t {};
  C10_HOST_DEVICE static constexpr from_bits_t from_bits() { return from_bits_t(); }
  Half() = default;
  C10_HOST_DEVICE constexpr Half(unsigned short bits, from_bits_t) : x(bits) {}
  C10_HOST_DEVICE Half(float value);
  C10_HOST_DEVICE operator float() const;
  C10_HOST_DEVICE Half(const __half& value);
  C10_HOST_DEVICE operator __half() const;
};
struct alignas(2) BFloat16 {
  unsigned short x;
  struct from_bits_t {};
  C10_HOST_DEVICE static constexpr from_bits_t from_bits() { return from_bits_t(); }
  BFloat16() = default;
  C10_HOST_DEVICE constexpr BFloat16(unsigned short bits, from_bits_t) : x(bits) {}
  C10_HOST_DEVICE BFloat16(float value);
  C10_HOST_DEVICE operator float() const;
  C10_HOST_DEVICE BFloat16(const __nv_bfloat16& value);
  C10_HOST_DEVICE explicit operator __nv_bfloat16() const;
};
/* mixed arithmetic of Half-inl.h / BFloat16-inl.h: R op R -> R, R op float -> float, R op double -> double,
 * R op int / int64_t -> R (and the reversed operand orders) */
template <class R, class T> struct __rt {};
template <class R> struct __rt<R, R> { typedef R type; };
template <class R> struct __rt<R, float> { typedef float type; };
template <class R> struct __rt<R, double> { typedef double type; };
template <class R> struct __rt<R, int> { typedef R type; };
template <class R> struct __rt<R, long> { typedef R type; };
#define __CL_C10_OPS(R)                                                                                                  \
  template <class T> C10_HOST_DEVICE typename __rt<R, T>::type operator+(const R& a, const T& b);                         \
  template <class T> C10_HOST_DEVICE typename __rt<R, T>::type operator-(const R& a, const T& b);                         \
  template <class T> C10_HOST_DEVICE typename __rt<R, T>::type operator*(const R& a, const T& b);                         \
  template <class T> C10_HOST_DEVICE typename __rt<R, T>::type operator/(const R& a, const T& b);                         \
  template <class T, class = typename std::enable_if<!__is_same(T, R)>::type>                                             \
  C10_HOST_DEVICE typename __rt<R, T>::type operator+(const T& a, const R& b);                                            \
  template <class T, class = typename std::enable_if<!__is_same(T, R)>::type>                                             \
  C10_HOST_DEVICE typename __rt<R, T>::type operator-(const T& a, const R& b);                                            \
  template <class T, class = typename std::enable_if<!__is_same(T, R)>::type>                                             \
  C10_HOST_DEVICE typename __rt<R, T>::type operator*(const T& a, const R& b);                                            \
  template <class T, class = typename std::enable_if<!__is_same(T, R)>::type>                                             \
  C10_HOST_DEVICE typename __rt<R, T>::type operator/(const T& a, const R& b);                                            \
  C10_HOST_DEVICE R operator-(const R& a);                                                                                \
  C10_HOST_DEVICE R& operator+=(R& a, const R& b);                                                                        \
  C10_HOST_DEVICE R& operator-=(R& a, const R& b);                                                                        \
  C10_HOST_DEVICE R& operator*=(R& a, const R& b);                                                                        \
  C10_HOST_DEVICE R& operator/=(R& a, const R& b);                                                                        \
  C10_HOST_DEVICE float& operator+=(float& a, const R& b);                                                                \
  C10_HOST_DEVICE float& operator-=(float& a, const R& b);                                                                \
  C10_HOST_DEVICE float& operator*=(float& a, const R& b);                                                                \
  C10_HOST_DEVICE float& operator/=(float& a, const R& b);                                                                \
  std::ostream& operator<<(std::ostream& out, const R& value);
__CL_C10_OPS(Half)
__CL_C10_OPS(BFloat16)
#undef __CL_C10_OPS
template <class T> struct complex {
  T real_, imag_;
  constexpr complex() = default;
  C10_HOST_DEVICE constexpr complex(const T& re, const T& im = T()) : real_(re), imag_(im) {}
  C10_HOST_DEVICE constexpr T real() const { return real_; }
  C10_HOST_DEVICE constexpr T imag() const { return imag_; }
};

/* ---- ScalarType / Device / Layout ---- */
enum class ScalarType : int8_t {
  Byte, Char, Short, Int, Long, Half, Float, Double, ComplexHalf, ComplexFloat, ComplexDouble, Bool, QInt8, QUInt8, QInt32,
  BFloat16, QUInt4x2, QUInt2x4, Bits1x8, Bits2x4, Bits4x2, Bits8, Bits16, Float8_e5m2, Float8_e4m3fn, Float8_e5m2fnuz,
  Float8_e4m3fnuz, UInt16, UInt32, UInt64, Undefined, NumOptions
};
constexpr ScalarType kByte = ScalarType::Byte;
constexpr ScalarType kChar = ScalarType::Char;
constexpr ScalarType kShort = ScalarType::Short;
constexpr ScalarType kInt = ScalarType::Int;
constexpr ScalarType kLong = ScalarType::Long;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kComplexHalf = ScalarType::ComplexHalf;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;
constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat8_e5m2 = ScalarType::Float8_e5m2;
constexpr ScalarType kFloat8_e4m3fn = ScalarType::Float8_e4m3fn;
constexpr ScalarType kUInt16 = ScalarType::UInt16;
constexpr ScalarType kUInt32 = ScalarType::UInt32;
constexpr ScalarType kUInt64 = ScalarType::UInt64;
const char* toString(ScalarType t);
size_t elementSize(ScalarType t);
bool isFloatingType(ScalarType t);
bool isIntegralType(ScalarType t, bool includeBool);
bool isComplexType(ScalarType t);
bool isReducedFloatingType(ScalarType t);
std::ostream& operator<<(std::ostream& stream, ScalarType scalar_type);
namespace impl {
template <ScalarType N> struct ScalarTypeToCPPType;
#define __CL_ST2CPP(cpp, N) template <> struct ScalarTypeToCPPType<ScalarType::N> { using type = cpp; };
__CL_ST2CPP(uint8_t, Byte) __CL_ST2CPP(int8_t, Char) __CL_ST2CPP(int16_t, Short) __CL_ST2CPP(int, Int)
__CL_ST2CPP(int64_t, Long) __CL_ST2CPP(c10::Half, Half) __CL_ST2CPP(float, Float) __CL_ST2CPP(double, Double)
__CL_ST2CPP(c10::complex<float>, ComplexFloat) __CL_ST2CPP(c10::complex<double>, ComplexDouble) __CL_ST2CPP(bool, Bool)
__CL_ST2CPP(c10::BFloat16, BFloat16) __CL_ST2CPP(uint16_t, UInt16) __CL_ST2CPP(uint32_t, UInt32) __CL_ST2CPP(uint64_t, UInt64)
#undef __CL_ST2CPP
template <ScalarType N> using ScalarTypeToCPPTypeT = typename ScalarTypeToCPPType<N>::type;
}  // namespace impl
template <class T> struct CppTypeToScalarType;
enum class DeviceType : int8_t { CPU = 0, CUDA = 1, MKLDNN = 2, OPENGL = 3, OPENCL = 4, IDEEP = 5, HIP = 6, FPGA = 7, MAIA = 8,
                                 XLA = 9, Vulkan = 10, Metal = 11, XPU = 12, MPS = 13, Meta = 14, HPU = 15, VE = 16, Lazy = 17,
                                 IPU = 18, MTIA = 19, PrivateUse1 = 20 };
constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kHIP = DeviceType::HIP;
constexpr DeviceType kMPS = DeviceType::MPS;
constexpr DeviceType kMeta = DeviceType::Meta;
constexpr DeviceType kXPU = DeviceType::XPU;
enum class Layout : int8_t { Strided, Sparse, SparseCsr, Mkldnn, SparseCsc, SparseBsr, SparseBsc, Jagged, NumOptions };
constexpr Layout kStrided = Layout::Strided;
constexpr Layout kSparse = Layout::Sparse;
enum class MemoryFormat : int8_t { Contiguous, Preserve, ChannelsLast, ChannelsLast3d, NumOptions };
struct Device {
  Device(DeviceType type, DeviceIndex index = -1);
  Device(const std::string& device_string);
  bool operator==(const Device& other) const noexcept;
  bool operator!=(const Device& other) const noexcept;
  DeviceType type() const noexcept;
  DeviceIndex index() const noexcept;
  bool has_index() const noexcept;
  bool is_cuda() const noexcept;
  bool is_cpu() const noexcept;
  void set_index(DeviceIndex index);
  std::string str() const;
};
std::ostream& operator<<(std::ostream& stream, const Device& device);
std::ostream& operator<<(std::ostream& stream, DeviceType type);
class Scalar {
 public:
  Scalar();
  template <class T, class = typename std::enable_if<__is_arithmetic(T) || __is_same(T, Half) || __is_same(T, BFloat16)>::type>
  Scalar(T v);
  template <class T> T to() const;
  double toDouble() const;
  float toFloat() const;
  int64_t toLong() const;
  int toInt() const;
  bool toBool() const;
  Half toHalf() const;
  bool isFloatingPoint() const;
  bool isIntegral(bool includeBool) const;
  ScalarType type() const;
};
template <class T> class ArrayRef {
  const T* Data;
  size_t Length;
 public:
  typedef const T* iterator;
  typedef const T* const_iterator;
  typedef size_t size_type;
  typedef T value_type;
  constexpr ArrayRef() : Data(nullptr), Length(0) {}
  constexpr ArrayRef(const T& OneElt) : Data(&OneElt), Length(1) {}
  constexpr ArrayRef(const T* data, size_t length) : Data(data), Length(length) {}
  constexpr ArrayRef(const T* begin, const T* end) : Data(begin), Length(end - begin) {}
  ArrayRef(const std::vector<T>& Vec);
  template <size_t N> ArrayRef(const std::array<T, N>& Arr);
  template <size_t N> constexpr ArrayRef(const T (&Arr)[N]) : Data(Arr), Length(N) {}
  constexpr ArrayRef(const std::initializer_list<T>& Vec) : Data(Vec.begin()), Length(Vec.size()) {}
  constexpr const T* begin() const { return Data; }
  constexpr const T* end() const { return Data + Length; }
  constexpr const T* data() const { return Data; }
  constexpr size_t size() const { return Length; }
  constexpr bool empty() const { return Length == 0; }
  constexpr const T& front() const { return Data[0]; }
  constexpr const T& back() const { return Data[Length - 1]; }
  constexpr const T& operator[](size_t Index) const { return Data[Index]; }
  const T& at(size_t Index) const;
  bool equals(ArrayRef RHS) const;
  ArrayRef slice(size_t N, size_t M) const;
  ArrayRef slice(size_t N) const;
  std::vector<T> vec() const;
};
template <class T> bool operator==(ArrayRef<T> a1, ArrayRef<T> a2);
template <class T> bool operator!=(ArrayRef<T> a1, ArrayRef<T> a2);
template <class T> bool operator==(const std::vector<T>& a1, ArrayRef<T> a2);
template <class T> bool operator==(ArrayRef<T> a1, const std::vector<T>& a2);
template <class T> std::ostream& operator<<(std::ostream& out, ArrayRef<T> list);
typedef ArrayRef<int64_t> IntArrayRef;
template <class T> class OptionalArrayRef {
 public:
  OptionalArrayRef() noexcept;
  OptionalArrayRef(nullopt_t) noexcept;
  OptionalArrayRef(const optional<ArrayRef<T>>& other) noexcept;
  OptionalArrayRef(const T& value) noexcept;
  template <class U = ArrayRef<T>, typename std::enable_if<!__is_same(std::decay_t<U>, OptionalArrayRef) &&
                                                               __is_convertible_to(U&&, ArrayRef<T>) &&
                                                               !__is_convertible_to(U&&, T), bool>::type = false>
  OptionalArrayRef(U&& value) noexcept;
  OptionalArrayRef(const std::initializer_list<T>& Vec);
  bool has_value() const noexcept;
  explicit operator bool() const noexcept;
  const ArrayRef<T>& value() const&;
  const ArrayRef<T>& operator*() const& noexcept;
  const ArrayRef<T>* operator->() const noexcept;
};
typedef OptionalArrayRef<int64_t> OptionalIntArrayRef;
typedef ArrayRef<int64_t> SymIntArrayRef;
typedef int64_t SymInt;
template <class I> struct integer_range {
  struct iterator {
    I value;
    I operator*() const { return value; }
    iterator& operator++() { ++value; return *this; }
    bool operator!=(const iterator& o) const { return value != o.value; }
  };
  iterator begin_, end_;
  iterator begin() const { return begin_; }
  iterator end() const { return end_; }
};
template <class I> integer_range<I> irange(I end);
template <class I1, class I2> integer_range<I2> irange(I1 begin, I2 end);
namespace detail {
[[noreturn]] void torchCheckFail(const char* func, const char* file, uint32_t line, const std::string& msg);
[[noreturn]] void torchCheckFail(const char* func, const char* file, uint32_t line, const char* msg);
// what a failed TORCH_CHECK calls here: its message is checked as expressions, like c10::str's arguments, without
// building a std::string and choosing between torchCheckFail's overloads in every parse (0.3 ms)
template <class... Args> [[noreturn]] void torchCheckFailed(const Args&... message);
[[noreturn]] void torchInternalAssertFail(const char* func, const char* file, uint32_t line, const char* condMsg,
                                          const std::string& userMsg);
}  // namespace detail
template <class... Args> std::string str(const Args&... args);
/* c10/core/WrapDimMinimal.h (at:: sees them through `using namespace c10`) */
int64_t maybe_wrap_dim(int64_t dim, int64_t dim_post_expr, bool wrap_scalar = true);
void warn(const std::string& msg);
class Error : public std::exception {
 public:
  Error(const std::string& msg);
  const char* what() const noexcept override;
  const std::string& msg() const;
};
class ValueError : public Error { using Error::Error; };
class TypeError : public Error { using Error::Error; };
class IndexError : public Error { using Error::Error; };
class NotImplementedError : public Error { using Error::Error; };
class OutOfMemoryError : public Error { using Error::Error; };
}  // namespace c10
namespace caffe2 {
class TypeMeta {
 public:
  TypeMeta() noexcept;
  template <class T> static TypeMeta Make();
  c10::string_view name() const noexcept;
  size_t itemsize() const noexcept;
  c10::ScalarType toScalarType() const;
  template <class T> bool Match() const noexcept;
  bool operator==(const TypeMeta& rhs) const noexcept;
  bool operator!=(const TypeMeta& rhs) const noexcept;
};
bool operator==(const TypeMeta& m, c10::ScalarType t);
bool operator!=(const TypeMeta& m, c10::ScalarType t);
bool operator==(c10::ScalarType t, const TypeMeta& m);
bool operator!=(c10::ScalarType t, const TypeMeta& m);
std::ostream& operator<<(std::ostream& out, const TypeMeta& meta);
}  // namespace caffe2
namespace c10 {
using caffe2::TypeMeta;
ScalarType typeMetaToScalarType(TypeMeta dtype);
TypeMeta scalarTypeToTypeMeta(ScalarType scalar_type);
struct TensorOptions {
  TensorOptions();
  TensorOptions(ScalarType dtype);
  TensorOptions(TypeMeta dtype);
  TensorOptions(Device device);
  TensorOptions(DeviceType device_type);
  TensorOptions(Layout layout);
  TensorOptions(MemoryFormat memory_format);
  TensorOptions dtype(ScalarType dtype) const noexcept;
  TensorOptions dtype(TypeMeta dtype) const noexcept;
  TensorOptions dtype(optional<ScalarType> dtype) const noexcept;
  template <class T> TensorOptions dtype() const noexcept;
  TensorOptions device(Device device) const noexcept;
  TensorOptions device(DeviceType type, DeviceIndex index = -1) const noexcept;
  TensorOptions device_index(DeviceIndex device_index) const noexcept;
  TensorOptions layout(Layout layout) const noexcept;
  TensorOptions requires_grad(bool requires_grad) const noexcept;
  TensorOptions pinned_memory(bool pinned_memory) const noexcept;
  TensorOptions memory_format(MemoryFormat memory_format) const noexcept;
  TypeMeta dtype() const noexcept;
  Device device() const noexcept;
  DeviceIndex device_index() const noexcept;
  Layout layout() const noexcept;
  bool requires_grad() const noexcept;
  bool pinned_memory() const noexcept;
  bool has_dtype() const noexcept;
  bool has_device() const noexcept;
};
TensorOptions dtype(ScalarType dtype);
TensorOptions dtype(TypeMeta dtype);
template <class T> TensorOptions dtype();
TensorOptions device(Device device);
TensorOptions device(DeviceType type, DeviceIndex index = -1);
TensorOptions layout(Layout layout);
TensorOptions requires_grad(bool requires_grad = true);
TensorOptions memory_format(MemoryFormat memory_format);
namespace cuda {}  // c10::cuda: declared by the CUDA headers (c10/cuda/*.h), not by torch/types.h
}  // namespace c10
namespace c10 {
template <class T> class List {
 public:
  explicit List();
  List(std::initializer_list<T> initial_values);
  explicit List(ArrayRef<T> initial_values);
  List(const List&) = default;
  size_t size() const;
  bool empty() const;
  T get(size_t pos) const;
  void push_back(const T& value) const;
  std::vector<T> vec() const;
};
}  // namespace c10
namespace at {
using namespace c10;
class Tensor;
struct Generator {
  Generator() = default;
  uint64_t current_seed() const;
  void set_current_seed(uint64_t seed);
};
typedef ArrayRef<Tensor> TensorList;
typedef const Tensor& TensorRef;
template <class T> struct DefaultPtrTraits { typedef T* PtrType; };
template <class T> struct RestrictPtrTraits { typedef T* __restrict__ PtrType; };
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
class TensorAccessorBase {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST_DEVICE TensorAccessorBase(PtrType data, const index_t* sizes, const index_t* strides);
  C10_HOST_DEVICE index_t stride(index_t i) const;
  C10_HOST_DEVICE index_t size(index_t i) const;
  C10_HOST_DEVICE PtrType data();
  C10_HOST_DEVICE const PtrType data() const;
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
class TensorAccessor : public TensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  C10_HOST_DEVICE TensorAccessor(typename PtrTraits<T>::PtrType data, const index_t* sizes, const index_t* strides);
  C10_HOST_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i);
  C10_HOST_DEVICE const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const;
};
template <class T, template <class U> class PtrTraits, class index_t>
class TensorAccessor<T, 1, PtrTraits, index_t> : public TensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  C10_HOST_DEVICE TensorAccessor(typename PtrTraits<T>::PtrType data, const index_t* sizes, const index_t* strides);
  C10_HOST_DEVICE T& operator[](index_t i);
  C10_HOST_DEVICE const T& operator[](index_t i) const;
};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
class GenericPackedTensorAccessorBase {
 public:
  typedef typename PtrTraits<T>::PtrType PtrType;
  C10_HOST_DEVICE index_t stride(index_t i) const;
  C10_HOST_DEVICE index_t size(index_t i) const;
  C10_HOST_DEVICE PtrType data();
  C10_HOST_DEVICE const PtrType data() const;
};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
class GenericPackedTensorAccessor : public GenericPackedTensorAccessorBase<T, N, PtrTraits, index_t> {
 public:
  C10_HOST_DEVICE TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i);
  C10_HOST_DEVICE const TensorAccessor<T, N - 1, PtrTraits, index_t> operator[](index_t i) const;
  C10_HOST_DEVICE GenericPackedTensorAccessor<T, N, PtrTraits, index_t> transpose(index_t dim1, index_t dim2) const;
};
template <class T, template <class U> class PtrTraits, class index_t>
class GenericPackedTensorAccessor<T, 1, PtrTraits, index_t> : public GenericPackedTensorAccessorBase<T, 1, PtrTraits, index_t> {
 public:
  C10_HOST_DEVICE T& operator[](index_t i);
  C10_HOST_DEVICE const T& operator[](index_t i) const;
};
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor32 = GenericPackedTensorAccessor<T, N, PtrTraits, int32_t>;
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
using PackedTensorAccessor64 = GenericPackedTensorAccessor<T, N, PtrTraits, int64_t>;
template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
using PackedTensorAccessor = GenericPackedTensorAccessor<T, N, PtrTraits, index_t>;
namespace indexing {
struct EllipsisIndexType { EllipsisIndexType() = default; };
extern const EllipsisIndexType Ellipsis;
constexpr nullopt_t None = nullopt;
struct Slice {
  Slice(optional<int64_t> start_index = {}, optional<int64_t> stop_index = {}, optional<int64_t> step_index = {});
  int64_t start() const;
  int64_t stop() const;
  int64_t step() const;
};
class TensorIndex {
 public:
  TensorIndex(nullopt_t);
  TensorIndex(EllipsisIndexType);
  TensorIndex(const char* str);
  TensorIndex(int64_t integer);
  TensorIndex(int integer);
  TensorIndex(bool boolean);
  TensorIndex(Slice slice);
  TensorIndex(const Tensor& tensor);
};
}  // namespace indexing
class DeprecatedTypeProperties {
 public:
  ScalarType scalarType() const;
  bool is_cuda() const;
  std::string toString() const;
};
class Tensor {
 public:
  Tensor();
  Tensor(const Tensor&);
  Tensor(Tensor&&) noexcept;
  ~Tensor();
  Tensor& operator=(const Tensor&) &;
  Tensor& operator=(Tensor&&) &;
  Tensor& operator=(const Tensor&) &&;
  Tensor& operator=(const Scalar& v) &&;
  Tensor& operator=(const Scalar& v) &;
  bool defined() const;
  void reset();
  int64_t dim() const;
  int64_t ndimension() const;
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  IntArrayRef sizes() const;
  IntArrayRef strides() const;
  SymIntArrayRef sym_sizes() const;
  int64_t numel() const;
  int64_t storage_offset() const;
  size_t nbytes() const;
  int64_t element_size() const;
  size_t itemsize() const;
  bool is_contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  MemoryFormat suggest_memory_format(bool channels_last_strides_exact_match = false) const;
  bool is_cuda() const;
  bool is_cpu() const;
  bool is_floating_point() const;
  bool is_complex() const;
  bool is_sparse() const;
  bool is_pinned() const;
  bool is_same(const Tensor& other) const noexcept;
  bool requires_grad() const;
  bool is_leaf() const;
  long use_count() const noexcept;
  ScalarType scalar_type() const;
  TypeMeta dtype() const;
  Device device() const;
  int64_t get_device() const;
  Layout layout() const;
  TensorOptions options() const;
  DeprecatedTypeProperties& type() const;
  template <class T> T* data_ptr() const;
  void* data_ptr() const;
  template <class T> const T* const_data_ptr() const;
  const void* const_data_ptr() const;
  template <class T> T* mutable_data_ptr() const;
  void* mutable_data_ptr() const;
  template <class T> T* data() const;
  template <class T> T item() const;
  Scalar item() const;
  template <class T, size_t N> TensorAccessor<T, N> accessor() const&;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> generic_packed_accessor() const&;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor32<T, N, PtrTraits> packed_accessor32() const&;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits>
  PackedTensorAccessor64<T, N, PtrTraits> packed_accessor64() const&;
  template <class T, size_t N, template <class U> class PtrTraits = DefaultPtrTraits, class index_t = int64_t>
  GenericPackedTensorAccessor<T, N, PtrTraits, index_t> packed_accessor() const&;
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  Tensor to(TensorOptions options, bool non_blocking = false, bool copy = false,
            optional<MemoryFormat> memory_format = {}) const;
  Tensor to(Device device, ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(ScalarType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Tensor& other, bool non_blocking = false, bool copy = false) const;
  Tensor cuda() const;
  Tensor cpu() const;
  Tensor half() const;
  Tensor bfloat16() const;
  Tensor toType(ScalarType t) const;
  const Tensor& set_requires_grad(bool requires_grad) const;
  Tensor& requires_grad_(bool requires_grad = true) const;
  const Tensor& grad() const;
  void backward() const;
  std::string toString() const;
  void print() const;
  Tensor operator[](int64_t index) const;
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs);
  Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& rhs);
  Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& v);
  Tensor operator[](const Tensor& index) const;
  Tensor operator-() const;
  Tensor operator~() const;
  Tensor& operator+=(const Tensor& other);
  Tensor& operator+=(const Scalar& other);
  Tensor& operator-=(const Tensor& other);
  Tensor& operator-=(const Scalar& other);
  Tensor& operator*=(const Tensor& other);
  Tensor& operator*=(const Scalar& other);
  Tensor& operator/=(const Tensor& other);
  Tensor& operator/=(const Scalar& other);
#include <__cudalint/aten_tensor_methods.h>
};
#define __CL_TENSOR_BINOP(op)                          \
  Tensor operator op(const Tensor& a, const Tensor& b); \
  Tensor operator op(const Tensor& a, const Scalar& b); \
  Tensor operator op(const Scalar& a, const Tensor& b);
__CL_TENSOR_BINOP(+) __CL_TENSOR_BINOP(-) __CL_TENSOR_BINOP(*) __CL_TENSOR_BINOP(/) __CL_TENSOR_BINOP(==)
__CL_TENSOR_BINOP(!=) __CL_TENSOR_BINOP(<) __CL_TENSOR_BINOP(>) __CL_TENSOR_BINOP(<=) __CL_TENSOR_BINOP(>=)
__CL_TENSOR_BINOP(&) __CL_TENSOR_BINOP(|)
#undef __CL_TENSOR_BINOP
std::ostream& operator<<(std::ostream& out, const Tensor& t);
optional<Device> device_of(const Tensor& t);
/* the operator functions, generated from native_functions.yaml */
}  // namespace at
#include <__cudalint/aten_functions.h>
namespace at {
Tensor from_blob(void* data, IntArrayRef sizes, const TensorOptions& options = {});
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, const TensorOptions& options = {});
/* at::tensor (ATen/templates/Functions.h): per scalar type, from an ArrayRef, a braced list or one value */
#define __CL_TENSOR_FROM(T)                                                         \
  Tensor tensor(ArrayRef<T> values, const TensorOptions& options);                  \
  Tensor tensor(std::initializer_list<T> values, const TensorOptions& options);     \
  Tensor tensor(T value, const TensorOptions& options);                             \
  Tensor tensor(ArrayRef<T> values);                                                \
  Tensor tensor(std::initializer_list<T> values);                                   \
  Tensor tensor(T value);
__CL_TENSOR_FROM(uint8_t) __CL_TENSOR_FROM(int8_t) __CL_TENSOR_FROM(int16_t) __CL_TENSOR_FROM(int)
__CL_TENSOR_FROM(int64_t) __CL_TENSOR_FROM(float) __CL_TENSOR_FROM(double) __CL_TENSOR_FROM(bool)
__CL_TENSOR_FROM(c10::Half) __CL_TENSOR_FROM(c10::BFloat16)
#undef __CL_TENSOR_FROM
void manual_seed(uint64_t seed);
struct NoGradGuard { NoGradGuard(); ~NoGradGuard(); };
struct InferenceMode { InferenceMode(bool enabled = true); };
void checkSameGPU(const char* where, const Tensor& t1, const Tensor& t2);
void checkAllSameGPU(const char* where, TensorList tensors);
namespace cuda {
using namespace c10::cuda;
}  // namespace cuda
}  // namespace at
namespace torch {
using namespace at;
using std::optional;
using std::nullopt;
using Dtype = at::ScalarType;
constexpr auto kUInt8 = at::kByte;
constexpr auto kInt8 = at::kChar;
constexpr auto kInt16 = at::kShort;
constexpr auto kInt32 = at::kInt;
constexpr auto kInt64 = at::kLong;
constexpr auto kFloat16 = at::kHalf;
constexpr auto kFloat32 = at::kFloat;
constexpr auto kFloat64 = at::kDouble;
constexpr auto kU8 = at::kByte;
constexpr auto kI8 = at::kChar;
constexpr auto kI16 = at::kShort;
constexpr auto kI32 = at::kInt;
constexpr auto kI64 = at::kLong;
constexpr auto kF16 = at::kHalf;
constexpr auto kF32 = at::kFloat;
constexpr auto kF64 = at::kDouble;
/* torch/csrc/api/include/torch/detail/TensorDataContainer.h: a scalar, a (nested) braced list, an ArrayRef or a
 * std::vector of scalars */
namespace detail {
class TensorDataContainer {
 public:
  TensorDataContainer();
  template <class T, class = typename std::enable_if<__is_arithmetic(T) || __is_same(T, c10::Half) ||
                                                     __is_same(T, c10::BFloat16) || __is_same(T, c10::complex<float>) ||
                                                     __is_same(T, c10::complex<double>)>::type>
  TensorDataContainer(T value);
  TensorDataContainer(std::initializer_list<TensorDataContainer> init_list);
  template <class T> TensorDataContainer(at::ArrayRef<T> values);
  template <class T> TensorDataContainer(const std::vector<T>& values);
  bool is_scalar() const;
  bool is_init_list() const;
  bool is_tensor() const;
  at::IntArrayRef sizes() const;
  at::ScalarType scalar_type() const;
};
}  // namespace detail
at::Tensor tensor(detail::TensorDataContainer tensor_data_container, const at::TensorOptions& options = {});
struct Library {
  template <class... A> Library& def(A&&... args) { return *this; }
  template <class... A> Library& impl(A&&... args) { return *this; }
};
}  // namespace torch
#include <__cudalint/torch_nn_functional.h>
namespace pybind11 {
class handle {};
struct str_attr_accessor {
  template <class T> str_attr_accessor& operator=(T&& value);
};
class object : public handle {
 public:
  str_attr_accessor doc() const;
  str_attr_accessor attr(const char* name) const;
};
struct arg_v;
struct arg {
  explicit arg(const char* name);
  template <class T> arg_v operator=(T&& value) const;
  arg& noconvert(bool flag = true);
  arg& none(bool flag = true);
};
struct arg_v : arg { using arg::arg; };
class module_ : public object {
 public:
  template <class F, class... Extra> module_& def(const char* name, F&& f, const Extra&... extra) { return *this; }
  module_ def_submodule(const char* name, const char* doc = nullptr);
  template <class T> void add_object(const char* name, T&& obj);
};
typedef module_ module;
template <class... Ts> class class_ : public object {
 public:
  template <class... Extra> class_(handle scope, const char* name, const Extra&... extra);
  template <class F, class... Extra> class_& def(const char* name, F&& f, const Extra&... extra) { return *this; }
  template <class... Args, class... Extra> class_& def(Args&&... args) { return *this; }
};
template <class... Args> struct __init {};
template <class... Args> __init<Args...> init();
struct gil_scoped_release { gil_scoped_release(); };
struct gil_scoped_acquire { gil_scoped_acquire(); };
class none : public object {};
namespace literals { arg operator""_a(const char* name, size_t); }
}  // namespace pybind11
namespace py = pybind11;
#define PYBIND11_MODULE(name, variable)                                                              \
  static void pybind11_init_##name(::pybind11::module_&);                                             \
  extern "C" __attribute__((visibility("default"))) void* PyInit_##name() { return nullptr; }          \
  void pybind11_init_##name(::pybind11::module_& variable)
#define TORCH_LIBRARY(ns, m) static void TORCH_LIBRARY_init_##ns(torch::Library& m)
#define TORCH_LIBRARY_IMPL(ns, k, m) static void TORCH_LIBRARY_IMPL_init_##ns##_##k(torch::Library& m)

/* ---- error checking macros ---- */
#define TORCH_CHECK(cond, ...)                                      \
  if (C10_UNLIKELY(!(cond))) {                                      \
    ::c10::detail::torchCheckFailed(__VA_ARGS__);                   \
  }
#define TORCH_CHECK_MSG(cond, type, ...) (::c10::str(__VA_ARGS__))
#define TORCH_CHECK_VALUE(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_TYPE(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_INDEX(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_NOT_IMPLEMENTED(cond, ...) TORCH_CHECK(cond, __VA_ARGS__)
#define TORCH_CHECK_EQ(a, b) TORCH_CHECK((a) == (b))
#define TORCH_CHECK_NE(a, b) TORCH_CHECK((a) != (b))
#define TORCH_CHECK_LE(a, b) TORCH_CHECK((a) <= (b))
#define TORCH_CHECK_LT(a, b) TORCH_CHECK((a) < (b))
#define TORCH_CHECK_GE(a, b) TORCH_CHECK((a) >= (b))
#define TORCH_CHECK_GT(a, b) TORCH_CHECK((a) > (b))
#define TORCH_INTERNAL_ASSERT(cond, ...)                                                                           \
  if (C10_UNLIKELY(!(cond))) {                                                                                     \
    ::c10::detail::torchInternalAssertFail(__func__, __FILE__, static_cast<uint32_t>(__LINE__), #cond,            \
                                           ::c10::str(__VA_ARGS__));                                               \
  }
#define TORCH_INTERNAL_ASSERT_DEBUG_ONLY(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#define TORCH_WARN(...) ::c10::warn(::c10::str(__VA_ARGS__))
#define TORCH_WARN_ONCE(...) ::c10::warn(::c10::str(__VA_ARGS__))
#define AT_ERROR(...) ::c10::detail::torchCheckFail(__func__, __FILE__, static_cast<uint32_t>(__LINE__), ::c10::str(__VA_ARGS__))
#define AT_ASSERT(...) TORCH_INTERNAL_ASSERT(__VA_ARGS__)
#define AT_ASSERTM(cond, ...) TORCH_INTERNAL_ASSERT(cond, __VA_ARGS__)
#define CUDA_KERNEL_ASSERT(cond) assert(cond)
#define CUDA_KERNEL_ASSERT_MSG(cond, msg) assert(cond)
#define SYCL_KERNEL_ASSERT(cond) assert(cond)

/* ---- AT_DISPATCH_* (same expansion structure as ATen/Dispatch.h) ---- */
namespace detail {
inline at::ScalarType scalar_type(at::ScalarType s) { return s; }
inline at::ScalarType scalar_type(const at::DeprecatedTypeProperties& t) { return t.scalarType(); }
}  // namespace detail
#define AT_PRIVATE_CASE_TYPE_USING_HINT(enum_type, HINT, ...)                     \
  case enum_type: {                                                               \
    using HINT __attribute__((__unused__)) = c10::impl::ScalarTypeToCPPTypeT<enum_type>; \
    return __VA_ARGS__();                                                         \
  }
#define AT_DISPATCH_CASE(enum_type, ...) AT_PRIVATE_CASE_TYPE_USING_HINT(enum_type, scalar_t, __VA_ARGS__)
#define AT_DISPATCH_SWITCH(TYPE, NAME, ...)                                                              \
  [&] {                                                                                                  \
    const auto& the_type = TYPE;                                                                         \
    constexpr const char* at_dispatch_name = NAME;                                                       \
    at::ScalarType _st = ::detail::scalar_type(the_type);                                                \
    switch (_st) {                                                                                       \
      __VA_ARGS__                                                                                        \
      default:                                                                                           \
        TORCH_CHECK(false, '"', at_dispatch_name, "\" not implemented for '", c10::toString(_st), "'");  \
    }                                                                                                    \
  }()
#define AT_DISPATCH_CASE_FLOATING_TYPES(...) \
  AT_DISPATCH_CASE(at::ScalarType::Double, __VA_ARGS__) AT_DISPATCH_CASE(at::ScalarType::Float, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND_HALF(...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(at::ScalarType::Half, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND_HALF(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES_AND_HALF(__VA_ARGS__))
#define AT_DISPATCH_CASE_REDUCED_FLOATING_TYPES(...) \
  AT_DISPATCH_CASE(at::ScalarType::Half, __VA_ARGS__) AT_DISPATCH_CASE(at::ScalarType::BFloat16, __VA_ARGS__)
#define AT_DISPATCH_REDUCED_FLOATING_TYPES(TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_REDUCED_FLOATING_TYPES(__VA_ARGS__))
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND(SCALARTYPE, ...) \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND(SCALARTYPE, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES_AND(SCALARTYPE, __VA_ARGS__))
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, ...)                                 \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__)                   \
  AT_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, __VA_ARGS__))
#define AT_DISPATCH_CASE_FLOATING_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, ...)                    \
  AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__)                   \
  AT_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE3, __VA_ARGS__)
#define AT_DISPATCH_FLOATING_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_FLOATING_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, __VA_ARGS__))
#define AT_DISPATCH_CASE_INTEGRAL_TYPES(...)                                                                   \
  AT_DISPATCH_CASE(at::ScalarType::Byte, __VA_ARGS__) AT_DISPATCH_CASE(at::ScalarType::Char, __VA_ARGS__)      \
  AT_DISPATCH_CASE(at::ScalarType::Int, __VA_ARGS__) AT_DISPATCH_CASE(at::ScalarType::Long, __VA_ARGS__)       \
  AT_DISPATCH_CASE(at::ScalarType::Short, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_CASE_INTEGRAL_TYPES_AND(SCALARTYPE, ...) \
  AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__)
#define AT_DISPATCH_INTEGRAL_TYPES_AND(SCALARTYPE, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_INTEGRAL_TYPES_AND(SCALARTYPE, __VA_ARGS__))
#define AT_DISPATCH_CASE_ALL_TYPES(...) AT_DISPATCH_CASE_INTEGRAL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE_FLOATING_TYPES(__VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES(TYPE, NAME, ...) AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__))
#define AT_DISPATCH_CASE_ALL_TYPES_AND(SCALARTYPE, ...) AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND(SCALARTYPE, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND(SCALARTYPE, __VA_ARGS__))
#define AT_DISPATCH_CASE_ALL_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, ...) \
  AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND2(SCALARTYPE1, SCALARTYPE2, __VA_ARGS__))
#define AT_DISPATCH_CASE_ALL_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, ...)                       \
  AT_DISPATCH_CASE_ALL_TYPES(__VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE1, __VA_ARGS__)                      \
  AT_DISPATCH_CASE(SCALARTYPE2, __VA_ARGS__) AT_DISPATCH_CASE(SCALARTYPE3, __VA_ARGS__)
#define AT_DISPATCH_ALL_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, TYPE, NAME, ...) \
  AT_DISPATCH_SWITCH(TYPE, NAME, AT_DISPATCH_CASE_ALL_TYPES_AND3(SCALARTYPE1, SCALARTYPE2, SCALARTYPE3, __VA_ARGS__))
#define AT_DISPATCH_INDEX_TYPES(TYPE, NAME, ...)                                  \
  AT_DISPATCH_SWITCH(TYPE, NAME,                                                  \
                     AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Int, index_t, __VA_ARGS__) \
                     AT_PRIVATE_CASE_TYPE_USING_HINT(at::ScalarType::Long, index_t, __VA_ARGS__))
/* Never called. Parsed here, it makes in the precompiled prelude the template instantiations that nearly every
 * load_inline wrapper needs: an IntArrayRef from a braced list, the factory functions' optional arguments,
 * data_ptr<float>, an optional<ScalarType> from a dtype constant. Made in each parse instead, they cost
 * 0.2-0.5 ms apiece. Inline, so that loading the prelude does not deserialize it. */
namespace c10 { namespace detail {
inline void __cudalint_common_instantiations(const at::Tensor& x) {
  at::Tensor sized = at::empty({x.size(0), x.size(1)}, x.options().dtype(at::kFloat));
  at::Tensor like = at::empty_like(x);
  float* data = x.data_ptr<float>();
  (void)sized, (void)like, (void)data;
}
} }
#endif
