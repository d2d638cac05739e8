#pragma once
/* cudalint stub: less common host-side standard headers used by launcher / benchmark code:
 * <chrono>, <random>, <map>, <unordered_map>, <set>, <unordered_set>, <list>, <deque>, <queue>, <atomic>,
 * <mutex>, <thread>. Declarations only, deliberately minimal. */
#pragma clang system_header
#ifndef __CUDALINT_STD_EXTRA_H
#define __CUDALINT_STD_EXTRA_H
#include <__cudalint/std_lib.h>
namespace std {
/* <chrono> */
template <intmax_t _N, intmax_t _D = 1> struct ratio { static constexpr intmax_t num = _N; static constexpr intmax_t den = _D; };
typedef ratio<1, 1000000000> nano;
typedef ratio<1, 1000000> micro;
typedef ratio<1, 1000> milli;
namespace chrono {
template <class _Rep, class _Period = ratio<1>> class duration {
 public:
  typedef _Rep rep;
  typedef _Period period;
  constexpr duration() = default;
  template <class _R2> constexpr explicit duration(const _R2& __r) : __r_(__r) {}
  template <class _R2, class _P2> constexpr duration(const duration<_R2, _P2>& __d) : __r_(__d.count()) {}
  constexpr _Rep count() const { return __r_; }
  _Rep __r_;
};
template <class _R1, class _P1, class _R2, class _P2>
constexpr duration<__decay(decltype(_R1() + _R2()))> operator-(const duration<_R1, _P1>& __a, const duration<_R2, _P2>& __b);
template <class _R1, class _P1, class _R2, class _P2>
constexpr duration<__decay(decltype(_R1() + _R2()))> operator+(const duration<_R1, _P1>& __a, const duration<_R2, _P2>& __b);
typedef duration<long long, nano> nanoseconds;
typedef duration<long long, micro> microseconds;
typedef duration<long long, milli> milliseconds;
typedef duration<long long> seconds;
template <class _To, class _R, class _P> constexpr _To duration_cast(const duration<_R, _P>& __d) { return _To(__d.count()); }
template <class _Clock, class _Dur = typename _Clock::duration> class time_point {
 public:
  constexpr _Dur time_since_epoch() const { return __d_; }
  _Dur __d_;
};
template <class _C, class _D1, class _D2> constexpr _D1 operator-(const time_point<_C, _D1>& __a, const time_point<_C, _D2>& __b) {
  return __a.time_since_epoch();
}
struct system_clock { typedef nanoseconds duration; typedef time_point<system_clock> time_point; static time_point now() noexcept; };
struct steady_clock { typedef nanoseconds duration; typedef time_point<steady_clock> time_point; static time_point now() noexcept; };
typedef steady_clock high_resolution_clock;
}  // namespace chrono
/* <random> */
class random_device { public: random_device(); unsigned int operator()(); };
class mt19937 {
 public:
  typedef unsigned int result_type;
  explicit mt19937(unsigned int __seed = 5489u);
  void seed(unsigned int __s);
  unsigned int operator()();
  static constexpr unsigned int min() { return 0; }
  static constexpr unsigned int max() { return 0xffffffffu; }
};
class mt19937_64 { public: explicit mt19937_64(unsigned long long __seed = 5489u); unsigned long long operator()(); };
typedef mt19937 default_random_engine;
template <class _T = double> class uniform_real_distribution {
 public:
  explicit uniform_real_distribution(_T __a = _T(0), _T __b = _T(1));
  template <class _G> _T operator()(_G& __g);
};
template <class _T = int> class uniform_int_distribution {
 public:
  explicit uniform_int_distribution(_T __a = _T(0), _T __b = _T(2147483647));
  template <class _G> _T operator()(_G& __g);
};
template <class _T = double> class normal_distribution {
 public:
  explicit normal_distribution(_T __mean = _T(0), _T __stddev = _T(1));
  template <class _G> _T operator()(_G& __g);
};
class bernoulli_distribution { public: explicit bernoulli_distribution(double __p = 0.5); template <class _G> bool operator()(_G& __g); };
/* associative / sequence containers */
template <class _K, class _V, class _Cmp = less<_K>> class map {
 public:
  typedef pair<const _K, _V> value_type;
  typedef value_type* iterator;
  typedef const value_type* const_iterator;
  map();
  map(initializer_list<value_type> __il);
  _V& operator[](const _K& __k);
  _V& at(const _K& __k);
  iterator find(const _K& __k);
  const_iterator find(const _K& __k) const;
  size_t count(const _K& __k) const;
  bool contains(const _K& __k) const;
  pair<iterator, bool> insert(const value_type& __v);
  template <class... _A> pair<iterator, bool> emplace(_A&&... __a);
  size_t erase(const _K& __k);
  iterator begin();
  iterator end();
  const_iterator begin() const;
  const_iterator end() const;
  size_t size() const;
  bool empty() const;
  void clear();
};
template <class _K, class _V, class _H = hash<_K>> class unordered_map : public map<_K, _V> {
 public:
  using map<_K, _V>::map;
  void reserve(size_t __n);
};
template <class _K, class _Cmp = less<_K>> class set {
 public:
  typedef const _K* iterator;
  set();
  set(initializer_list<_K> __il);
  pair<iterator, bool> insert(const _K& __k);
  iterator find(const _K& __k) const;
  size_t count(const _K& __k) const;
  iterator begin() const;
  iterator end() const;
  size_t size() const;
  bool empty() const;
};
template <class _K, class _H = hash<_K>> class unordered_set : public set<_K> { public: using set<_K>::set; };
template <class _T> struct hash { size_t operator()(const _T& __v) const noexcept; };
template <class _T> class list : public vector<_T> { public: using vector<_T>::vector; void push_front(const _T& __v); };
template <class _T> class deque : public vector<_T> { public: using vector<_T>::vector; void push_front(const _T& __v); void pop_front(); };
template <class _T> class queue { public: void push(const _T& __v); void pop(); _T& front(); bool empty() const; size_t size() const; };
/* <atomic>, <mutex>, <thread> */
enum memory_order { memory_order_relaxed, memory_order_consume, memory_order_acquire, memory_order_release, memory_order_acq_rel, memory_order_seq_cst };
template <class _T> struct atomic {
  atomic() noexcept = default;
  constexpr atomic(_T __d) noexcept : __v(__d) {}
  _T load(memory_order __m = memory_order_seq_cst) const noexcept;
  void store(_T __d, memory_order __m = memory_order_seq_cst) noexcept;
  _T fetch_add(_T __d, memory_order __m = memory_order_seq_cst) noexcept;
  _T exchange(_T __d, memory_order __m = memory_order_seq_cst) noexcept;
  operator _T() const noexcept;
  _T operator=(_T __d) noexcept;
  _T operator++() noexcept;
  _T operator++(int) noexcept;
  _T __v;
};
class mutex { public: mutex(); void lock(); void unlock(); bool try_lock(); };
template <class _M> class lock_guard { public: explicit lock_guard(_M& __m); };
template <class _M> class unique_lock { public: explicit unique_lock(_M& __m); void lock(); void unlock(); };
class thread {
 public:
  thread() noexcept;
  template <class _F, class... _A> explicit thread(_F&& __f, _A&&... __a) {}
  void join();
  void detach();
  bool joinable() const noexcept;
};
namespace this_thread { template <class _R, class _P> void sleep_for(const chrono::duration<_R, _P>& __d) {} }
}  // namespace std
#endif
