#pragma once
/* cudalint stub: host-side C++ standard library used by launcher code and torch extensions: string, vector,
 * array, tuple, pair, optional, variant, unique_ptr/shared_ptr, function, exceptions, iostream/sstream/iomanip and the
 * common algorithms. Declarations only, deliberately small (parse speed); members are host functions. */
#pragma clang system_header
#ifndef __CUDALINT_STD_LIB_H
#define __CUDALINT_STD_LIB_H
#include <__cudalint/std_core.h>
#include <__cudalint/std_traits.h>
namespace std {
template <class _T> _T&& __declval();
template <class _T> struct tuple_size;
template <size_t _I, class _T> struct tuple_element;
template <class _T> struct __ue { typedef _T type; };
template <class _T> struct __ue<_T[]> { typedef _T type; };
/* <utility> */
template <class _T1, class _T2> struct pair {
  typedef _T1 first_type;
  typedef _T2 second_type;
  _T1 first;
  _T2 second;
  constexpr pair() : first(), second() {}
  template <class _U1 = _T1, class _U2 = _T2> constexpr pair(_U1&& __x, _U2&& __y) : first(static_cast<_U1&&>(__x)), second(static_cast<_U2&&>(__y)) {}
  template <class _U1, class _U2> constexpr pair(const pair<_U1, _U2>& __p) : first(__p.first), second(__p.second) {}
};
template <class _T1, class _T2> pair(_T1, _T2) -> pair<_T1, _T2>;
template <class _T1, class _T2> struct tuple_size<pair<_T1, _T2>> : integral_constant<size_t, 2> {};
template <size_t _I, class _T1, class _T2> struct tuple_element<_I, pair<_T1, _T2>> { typedef __type_pack_element<_I, _T1, _T2> type; };
template <class _T1, class _T2> pair<__decay(_T1), __decay(_T2)> make_pair(_T1&& __x, _T2&& __y);
template <class _T1, class _T2> bool operator==(const pair<_T1, _T2>& __x, const pair<_T1, _T2>& __y);
template <class _T1, class _T2> bool operator<(const pair<_T1, _T2>& __x, const pair<_T1, _T2>& __y);
template <class _T1, class _T2> bool operator!=(const pair<_T1, _T2>& __x, const pair<_T1, _T2>& __y);
template <class _T1, class _T2> bool operator<=(const pair<_T1, _T2>& __x, const pair<_T1, _T2>& __y);
template <class _T1, class _T2> bool operator>(const pair<_T1, _T2>& __x, const pair<_T1, _T2>& __y);
template <class _T1, class _T2> bool operator>=(const pair<_T1, _T2>& __x, const pair<_T1, _T2>& __y);
/* <exception>, <stdexcept> */
class exception {
 public:
  exception() noexcept;
  virtual ~exception();
  virtual const char* what() const noexcept;
};
class string;
class logic_error : public exception { public: explicit logic_error(const string& __s); explicit logic_error(const char* __s); };
class runtime_error : public exception { public: explicit runtime_error(const string& __s); explicit runtime_error(const char* __s); };
class invalid_argument : public logic_error { public: using logic_error::logic_error; };
class out_of_range : public logic_error { public: using logic_error::logic_error; };
class length_error : public logic_error { public: using logic_error::logic_error; };
class domain_error : public logic_error { public: using logic_error::logic_error; };
class overflow_error : public runtime_error { public: using runtime_error::runtime_error; };
class range_error : public runtime_error { public: using runtime_error::runtime_error; };
class bad_alloc : public exception {};
/* <string> (not a template: std::string is what launcher code uses) */
class string {
 public:
  typedef char value_type;
  typedef size_t size_type;
  typedef char* iterator;
  typedef const char* const_iterator;
  static constexpr size_t npos = static_cast<size_t>(-1);
  string();
  string(const char* __s);
  string(const char* __s, size_t __n);
  string(size_t __n, char __c);
  string(const string& __s);
  string(string&& __s) noexcept;
  template <class _It> string(_It __first, _It __last);
  string(initializer_list<char> __il);
  ~string();
  string& operator=(const string& __s);
  string& operator=(string&& __s) noexcept;
  string& operator=(const char* __s);
  string& operator=(char __c);
  string& operator+=(const string& __s);
  string& operator+=(const char* __s);
  string& operator+=(char __c);
  string& append(const string& __s);
  string& append(const char* __s);
  string& append(size_t __n, char __c);
  void push_back(char __c);
  void pop_back();
  const char* c_str() const noexcept;
  const char* data() const noexcept;
  char* data() noexcept;
  size_t size() const noexcept;
  size_t length() const noexcept;
  bool empty() const noexcept;
  void clear() noexcept;
  void reserve(size_t __n);
  void resize(size_t __n, char __c = char());
  char& operator[](size_t __i);
  const char& operator[](size_t __i) const;
  char& at(size_t __i);
  char& back();
  char& front();
  iterator begin() noexcept;
  iterator end() noexcept;
  const_iterator begin() const noexcept;
  const_iterator end() const noexcept;
  string substr(size_t __pos = 0, size_t __n = npos) const;
  size_t find(const string& __s, size_t __pos = 0) const noexcept;
  size_t find(const char* __s, size_t __pos = 0) const;
  size_t find(char __c, size_t __pos = 0) const noexcept;
  size_t rfind(char __c, size_t __pos = npos) const noexcept;
  int compare(const string& __s) const noexcept;
  string& insert(size_t __pos, const string& __s);
  string& replace(size_t __pos, size_t __n, const string& __s);
  string& erase(size_t __pos = 0, size_t __n = npos);
};
string operator+(const string& __a, const string& __b);
string operator+(const string& __a, const char* __b);
string operator+(const char* __a, const string& __b);
string operator+(const string& __a, char __b);
string operator+(char __a, const string& __b);
bool operator==(const string& __a, const string& __b) noexcept;
bool operator==(const string& __a, const char* __b);
bool operator!=(const string& __a, const string& __b) noexcept;
bool operator!=(const string& __a, const char* __b);
bool operator<(const string& __a, const string& __b) noexcept;
string to_string(int __v);
string to_string(unsigned __v);
string to_string(long __v);
string to_string(unsigned long __v);
string to_string(long long __v);
string to_string(unsigned long long __v);
string to_string(float __v);
string to_string(double __v);
int stoi(const string& __s, size_t* __idx = 0, int __base = 10);
long stol(const string& __s, size_t* __idx = 0, int __base = 10);
long long stoll(const string& __s, size_t* __idx = 0, int __base = 10);
float stof(const string& __s, size_t* __idx = 0);
double stod(const string& __s, size_t* __idx = 0);
class string_view {
 public:
  string_view() noexcept;
  string_view(const char* __s);
  string_view(const char* __s, size_t __n);
  string_view(const string& __s) noexcept;
  size_t size() const noexcept;
  const char* data() const noexcept;
};
template <class _T> struct hash;
/* <vector> */
template <class _T> class allocator { public: typedef _T value_type; };
template <class _T, class _A = allocator<_T>> class vector {
 public:
  typedef _T value_type;
  typedef size_t size_type;
  typedef _T& reference;
  typedef const _T& const_reference;
  typedef _T* iterator;
  typedef const _T* const_iterator;
  vector() noexcept;
  explicit vector(size_t __n);
  vector(size_t __n, const _T& __v);
  vector(initializer_list<_T> __il);
  template <class _It, class = decltype(*__declval<_It>())> vector(_It __first, _It __last);
  vector(const vector& __x);
  vector(vector&& __x) noexcept;
  ~vector();
  vector& operator=(const vector& __x);
  vector& operator=(vector&& __x) noexcept;
  vector& operator=(initializer_list<_T> __il);
  void assign(size_t __n, const _T& __v);
  _T& operator[](size_t __n);
  const _T& operator[](size_t __n) const;
  _T& at(size_t __n);
  const _T& at(size_t __n) const;
  _T& front();
  const _T& front() const;
  _T& back();
  const _T& back() const;
  _T* data() noexcept;
  const _T* data() const noexcept;
  iterator begin() noexcept;
  iterator end() noexcept;
  const_iterator begin() const noexcept;
  const_iterator end() const noexcept;
  const_iterator cbegin() const noexcept;
  const_iterator cend() const noexcept;
  bool empty() const noexcept;
  size_t size() const noexcept;
  size_t capacity() const noexcept;
  void reserve(size_t __n);
  void resize(size_t __n);
  void resize(size_t __n, const _T& __v);
  void clear() noexcept;
  void push_back(const _T& __v);
  void push_back(_T&& __v);
  template <class... _Args> _T& emplace_back(_Args&&... __args);
  void pop_back();
  iterator insert(const_iterator __pos, const _T& __v);
  template <class _It> iterator insert(const_iterator __pos, _It __first, _It __last);
  iterator erase(const_iterator __pos);
  iterator erase(const_iterator __first, const_iterator __last);
  void swap(vector& __x) noexcept;
};
/* <array> */
template <class _T, size_t _N> struct array {
  typedef _T value_type;
  typedef _T* iterator;
  typedef const _T* const_iterator;
  _T __elems[_N == 0 ? 1 : _N];
  constexpr _T& operator[](size_t __n) { return __elems[__n]; }
  constexpr const _T& operator[](size_t __n) const { return __elems[__n]; }
  constexpr _T* data() noexcept { return __elems; }
  constexpr const _T* data() const noexcept { return __elems; }
  constexpr size_t size() const noexcept { return _N; }
  constexpr bool empty() const noexcept { return _N == 0; }
  constexpr _T* begin() noexcept { return __elems; }
  constexpr _T* end() noexcept { return __elems + _N; }
  constexpr const _T* begin() const noexcept { return __elems; }
  constexpr const _T* end() const noexcept { return __elems + _N; }
  void fill(const _T& __v);
};
template <class _T, class... _U> array(_T, _U...) -> array<_T, 1 + sizeof...(_U)>;
/* <tuple> */
template <class... _T> class tuple {
 public:
  tuple();
  template <class... _U> tuple(_U&&... __u);
};
template <class... _T> tuple(_T...) -> tuple<_T...>;
template <class... _T, class... _U> bool operator==(const tuple<_T...>& __x, const tuple<_U...>& __y);
template <class... _T, class... _U> bool operator!=(const tuple<_T...>& __x, const tuple<_U...>& __y);
template <class... _T, class... _U> bool operator<(const tuple<_T...>& __x, const tuple<_U...>& __y);
template <class... _T, class... _U> bool operator<=(const tuple<_T...>& __x, const tuple<_U...>& __y);
template <class... _T, class... _U> bool operator>(const tuple<_T...>& __x, const tuple<_U...>& __y);
template <class... _T, class... _U> bool operator>=(const tuple<_T...>& __x, const tuple<_U...>& __y);
template <class... _Tuples> struct __tuple_cat { typedef tuple<> type; };
template <class... _T> struct __tuple_cat<tuple<_T...>> { typedef tuple<_T...> type; };
template <class... _T, class... _U, class... _Rest>
struct __tuple_cat<tuple<_T...>, tuple<_U...>, _Rest...> : __tuple_cat<tuple<_T..., _U...>, _Rest...> {};
template <class... _Tuples> typename __tuple_cat<__remove_cvref(_Tuples)...>::type tuple_cat(_Tuples&&... __t);
template <class... _T> struct tuple_size<tuple<_T...>> : integral_constant<size_t, sizeof...(_T)> {};
template <size_t _I, class... _T> struct tuple_element<_I, tuple<_T...>> { typedef __type_pack_element<_I, _T...> type; };
template <size_t _I, class... _T> __type_pack_element<_I, _T...>& get(tuple<_T...>& __t) noexcept;
template <size_t _I, class... _T> const __type_pack_element<_I, _T...>& get(const tuple<_T...>& __t) noexcept;
template <size_t _I, class... _T> __type_pack_element<_I, _T...>&& get(tuple<_T...>&& __t) noexcept;
template <size_t _I, class _T1, class _T2> __type_pack_element<_I, _T1, _T2>& get(pair<_T1, _T2>& __p) noexcept;
template <size_t _I, class _T1, class _T2> const __type_pack_element<_I, _T1, _T2>& get(const pair<_T1, _T2>& __p) noexcept;
template <size_t _I, class _T1, class _T2> __type_pack_element<_I, _T1, _T2>&& get(pair<_T1, _T2>&& __p) noexcept;
template <size_t _I, class... _T> const __type_pack_element<_I, _T...>&& get(const tuple<_T...>&& __t) noexcept;
template <class _U, class... _T> _U& get(tuple<_T...>& __t) noexcept;
template <class _U, class... _T> const _U& get(const tuple<_T...>& __t) noexcept;
template <class _U, class... _T> _U&& get(tuple<_T...>&& __t) noexcept;
template <class _U, class _T1, class _T2> _U& get(pair<_T1, _T2>& __p) noexcept;
template <class _U, class _T1, class _T2> const _U& get(const pair<_T1, _T2>& __p) noexcept;
template <size_t _I, class _T, size_t _N> constexpr _T& get(array<_T, _N>& __a) noexcept { return __a[_I]; }
template <size_t _I, class _T, size_t _N> constexpr const _T& get(const array<_T, _N>& __a) noexcept { return __a[_I]; }
template <size_t _I, class _T, size_t _N> constexpr _T&& get(array<_T, _N>&& __a) noexcept { return static_cast<_T&&>(__a[_I]); }
template <class _T, size_t _N> struct tuple_size<array<_T, _N>> : integral_constant<size_t, _N> {};
template <size_t _I, class _T, size_t _N> struct tuple_element<_I, array<_T, _N>> { typedef _T type; };
template <class... _T> tuple<__decay(_T)...> make_tuple(_T&&... __t);
template <class... _T> tuple<_T&...> tie(_T&... __t) noexcept;
template <class... _T> tuple<_T&&...> forward_as_tuple(_T&&... __t) noexcept;
struct __ignore_t { template <class _T> const __ignore_t& operator=(const _T&) const; };
inline constexpr __ignore_t ignore{};
template <class _T> struct tuple_size<const _T> : tuple_size<_T> {};
template <size_t _I, class _T> struct tuple_element<_I, const _T> { typedef const typename tuple_element<_I, _T>::type type; };
template <class _T> inline constexpr size_t tuple_size_v = tuple_size<_T>::value;
template <size_t _I, class _T> using tuple_element_t = typename tuple_element<_I, _T>::type;
template <class _F, class _Tuple, size_t... _I>
constexpr decltype(auto) __apply(_F&& __f, _Tuple&& __t, index_sequence<_I...>) {
  return static_cast<_F&&>(__f)(get<_I>(static_cast<_Tuple&&>(__t))...);
}
template <class _F, class _Tuple> constexpr decltype(auto) apply(_F&& __f, _Tuple&& __t) {
  return __apply(static_cast<_F&&>(__f), static_cast<_Tuple&&>(__t), make_index_sequence<tuple_size<remove_reference_t<_Tuple>>::value>{});
}
template <class _T, class _Tuple> constexpr _T make_from_tuple(_Tuple&& __t);
/* <optional> */
struct nullopt_t { explicit constexpr nullopt_t(int) {} };
inline constexpr nullopt_t nullopt{0};
class bad_optional_access : public exception {};
template <class _T> class optional {
 public:
  typedef _T value_type;
  optional() noexcept;
  optional(nullopt_t) noexcept;
  template <class _U = _T, class = enable_if_t<__is_constructible(_T, _U&&) && !__is_same(decay_t<_U>, optional)>>
  optional(_U&& __v);
  optional(const optional&);
  optional(optional&&);
  template <class _U> optional(const optional<_U>& __o);
  optional& operator=(nullopt_t) noexcept;
  optional& operator=(const optional&);
  optional& operator=(optional&&);
  template <class _U = _T, class = enable_if_t<!__is_same(decay_t<_U>, optional)>> optional& operator=(_U&& __v);
  bool has_value() const noexcept;
  explicit operator bool() const noexcept;
  _T& value() &;
  const _T& value() const&;
  template <class _U> _T value_or(_U&& __d) const&;
  _T& operator*() & noexcept;
  const _T& operator*() const& noexcept;
  _T* operator->() noexcept;
  const _T* operator->() const noexcept;
  template <class... _A> _T& emplace(_A&&... __a);
  void reset() noexcept;
};
template <class _T> optional(_T) -> optional<_T>;
template <class _T> optional<__decay(_T)> make_optional(_T&& __v);
template <class _T> bool operator==(const optional<_T>& __o, nullopt_t) noexcept;
template <class _T> bool operator!=(const optional<_T>& __o, nullopt_t) noexcept;
/* <variant> */
struct monostate {};
class bad_variant_access : public exception {};
inline constexpr size_t variant_npos = static_cast<size_t>(-1);
template <class... _T> class variant {
 public:
  constexpr variant() noexcept;
  template <class _U, class = enable_if_t<!__is_same(__remove_cvref(_U), variant)>> constexpr variant(_U&& __u);
  variant(const variant&);
  variant(variant&&);
  variant& operator=(const variant&);
  variant& operator=(variant&&);
  template <class _U, class = enable_if_t<!__is_same(__remove_cvref(_U), variant)>> variant& operator=(_U&& __u);
  constexpr size_t index() const noexcept;
  constexpr bool valueless_by_exception() const noexcept;
  template <class _U, class... _A> _U& emplace(_A&&... __a);
  template <size_t _I, class... _A> __type_pack_element<_I, _T...>& emplace(_A&&... __a);
};
template <class _V> struct variant_size;
template <class... _T> struct variant_size<variant<_T...>> : integral_constant<size_t, sizeof...(_T)> {};
template <class _V> struct variant_size<const _V> : variant_size<_V> {};
template <class _V> inline constexpr size_t variant_size_v = variant_size<_V>::value;
template <size_t _I, class _V> struct variant_alternative;
template <size_t _I, class... _T> struct variant_alternative<_I, variant<_T...>> { typedef __type_pack_element<_I, _T...> type; };
template <size_t _I, class _V> struct variant_alternative<_I, const _V> { typedef const typename variant_alternative<_I, _V>::type type; };
template <size_t _I, class _V> using variant_alternative_t = typename variant_alternative<_I, _V>::type;
template <class _U, class... _T> constexpr bool holds_alternative(const variant<_T...>& __v) noexcept;
template <size_t _I, class... _T> constexpr __type_pack_element<_I, _T...>& get(variant<_T...>& __v);
template <size_t _I, class... _T> constexpr const __type_pack_element<_I, _T...>& get(const variant<_T...>& __v);
template <size_t _I, class... _T> constexpr __type_pack_element<_I, _T...>&& get(variant<_T...>&& __v);
template <class _U, class... _T> constexpr _U& get(variant<_T...>& __v);
template <class _U, class... _T> constexpr const _U& get(const variant<_T...>& __v);
template <class _U, class... _T> constexpr _U&& get(variant<_T...>&& __v);
template <size_t _I, class... _T> constexpr __add_pointer(__type_pack_element<_I, _T...>) get_if(variant<_T...>* __v) noexcept;
template <size_t _I, class... _T> constexpr __add_pointer(const __type_pack_element<_I, _T...>) get_if(const variant<_T...>* __v) noexcept;
template <class _U, class... _T> constexpr __add_pointer(_U) get_if(variant<_T...>* __v) noexcept;
template <class _U, class... _T> constexpr __add_pointer(const _U) get_if(const variant<_T...>* __v) noexcept;
/* the visitor's result for the first alternatives (the standard requires the same for all of them) */
template <class _Vis, class... _V>
constexpr decltype(__declval<_Vis>()(get<0>(__declval<_V>())...)) visit(_Vis&& __vis, _V&&... __vars);
template <class... _T> bool operator==(const variant<_T...>& __x, const variant<_T...>& __y);
template <class... _T> bool operator!=(const variant<_T...>& __x, const variant<_T...>& __y);
/* <memory> */
template <class _T> struct default_delete { void operator()(_T* __p) const; };
template <class _T, class _D = default_delete<_T>> class unique_ptr {
 public:
  unique_ptr() noexcept;
  unique_ptr(nullptr_t) noexcept;
  explicit unique_ptr(typename __ue<_T>::type* __p) noexcept;
  unique_ptr(typename __ue<_T>::type* __p, _D __d) noexcept;
  unique_ptr(unique_ptr&& __u) noexcept;
  template <class _U, class _E> unique_ptr(unique_ptr<_U, _E>&& __u) noexcept;
  ~unique_ptr();
  unique_ptr& operator=(unique_ptr&& __u) noexcept;
  unique_ptr& operator=(nullptr_t) noexcept;
  typename __ue<_T>::type* get() const noexcept;
  typename __ue<_T>::type* release() noexcept;
  void reset(typename __ue<_T>::type* __p = nullptr) noexcept;
  typename __ue<_T>::type& operator*() const;
  typename __ue<_T>::type* operator->() const noexcept;
  typename __ue<_T>::type& operator[](size_t __i) const;
  explicit operator bool() const noexcept;
};
template <class _T> class shared_ptr {
 public:
  shared_ptr() noexcept;
  shared_ptr(nullptr_t) noexcept;
  template <class _Y> explicit shared_ptr(_Y* __p);
  template <class _Y, class _D> shared_ptr(_Y* __p, _D __d);
  shared_ptr(const shared_ptr& __r) noexcept;
  template <class _Y> shared_ptr(const shared_ptr<_Y>& __r) noexcept;
  template <class _Y, class _D> shared_ptr(unique_ptr<_Y, _D>&& __r);
  ~shared_ptr();
  shared_ptr& operator=(const shared_ptr& __r) noexcept;
  typename __ue<_T>::type* get() const noexcept;
  _T& operator*() const noexcept;
  _T* operator->() const noexcept;
  long use_count() const noexcept;
  void reset() noexcept;
  explicit operator bool() const noexcept;
};
template <class _T, class... _A> unique_ptr<_T> make_unique(_A&&... __a);
template <class _T, class... _A> shared_ptr<_T> make_shared(_A&&... __a);
/* <functional> */
template <class _S> class function;
template <class _R, class... _A> class function<_R(_A...)> {
 public:
  function() noexcept;
  function(nullptr_t) noexcept;
  function(const function& __f);
  template <class _F, class = decltype(__declval<_F&>()(__declval<_A>()...))> function(_F __f) {}
  ~function();
  function& operator=(const function& __f);
  _R operator()(_A... __a) const;
  explicit operator bool() const noexcept;
};
template <class _T = void> struct plus { constexpr _T operator()(const _T& __x, const _T& __y) const { return __x + __y; } };
template <class _T = void> struct minus { constexpr _T operator()(const _T& __x, const _T& __y) const { return __x - __y; } };
template <class _T = void> struct multiplies { constexpr _T operator()(const _T& __x, const _T& __y) const { return __x * __y; } };
template <class _T = void> struct less { constexpr bool operator()(const _T& __x, const _T& __y) const { return __x < __y; } };
template <class _T = void> struct greater { constexpr bool operator()(const _T& __x, const _T& __y) const { return __y < __x; } };
template <class _T> class reference_wrapper;
template <class _T> reference_wrapper<_T> ref(_T& __t) noexcept;
template <class _T> reference_wrapper<const _T> cref(const _T& __t) noexcept;
/* <algorithm>, <numeric>, <iterator> (loosely typed) */
template <class _It> void sort(_It __first, _It __last);
template <class _It, class _C> void sort(_It __first, _It __last, _C __comp) {}
template <class _It, class _C> void stable_sort(_It __first, _It __last, _C __comp) {}
template <class _It, class _T> void fill(_It __first, _It __last, const _T& __v);
template <class _It, class _N, class _T> _It fill_n(_It __first, _N __n, const _T& __v);
template <class _I, class _O> _O copy(_I __first, _I __last, _O __result);
template <class _I, class _N, class _O> _O copy_n(_I __first, _N __n, _O __result);
template <class _I, class _O, class _F> _O transform(_I __first, _I __last, _O __result, _F __f) { return __result; }
template <class _I, class _I2, class _O, class _F> _O transform(_I __first, _I __last, _I2 __first2, _O __result, _F __f) { return __result; }
template <class _I, class _F> _F for_each(_I __first, _I __last, _F __f) { return __f; }
template <class _I, class _T> _I find(_I __first, _I __last, const _T& __v);
template <class _I, class _P> _I find_if(_I __first, _I __last, _P __p) { return __first; }
template <class _I, class _P> bool all_of(_I __first, _I __last, _P __p) { return true; }
template <class _I, class _P> bool any_of(_I __first, _I __last, _P __p) { return true; }
template <class _I, class _P> bool none_of(_I __first, _I __last, _P __p) { return true; }
template <class _I, class _T> long count(_I __first, _I __last, const _T& __v);
template <class _I, class _P> long count_if(_I __first, _I __last, _P __p) { return 0; }
template <class _I> _I max_element(_I __first, _I __last);
template <class _I, class _C> _I max_element(_I __first, _I __last, _C __comp) { return __first; }
template <class _I> _I min_element(_I __first, _I __last);
template <class _I, class _C> _I min_element(_I __first, _I __last, _C __comp) { return __first; }
template <class _I> void reverse(_I __first, _I __last);
template <class _I, class _T> _I lower_bound(_I __first, _I __last, const _T& __v);
template <class _I, class _T> _I upper_bound(_I __first, _I __last, const _T& __v);
template <class _I1, class _I2> bool equal(_I1 __first1, _I1 __last1, _I2 __first2);
template <class _I, class _T> _T accumulate(_I __first, _I __last, _T __init);
template <class _I, class _T, class _O> _T accumulate(_I __first, _I __last, _T __init, _O __op) { return __init; }
template <class _I1, class _I2, class _T> _T inner_product(_I1 __first1, _I1 __last1, _I2 __first2, _T __init);
template <class _I, class _T> void iota(_I __first, _I __last, _T __v);
template <class _I, class _O> _O partial_sum(_I __first, _I __last, _O __result);
template <class _C> auto begin(_C& __c) -> decltype(__c.begin());
template <class _C> auto begin(const _C& __c) -> decltype(__c.begin());
template <class _C> auto end(_C& __c) -> decltype(__c.end());
template <class _C> auto end(const _C& __c) -> decltype(__c.end());
template <class _T, size_t _N> _T* begin(_T (&__a)[_N]) noexcept;
template <class _T, size_t _N> _T* end(_T (&__a)[_N]) noexcept;
template <class _C> auto size(const _C& __c) -> decltype(__c.size());
template <class _T, size_t _N> constexpr size_t size(const _T (&__a)[_N]) noexcept { return _N; }
template <class _I> long distance(_I __first, _I __last);
template <class _C> class back_insert_iterator;
template <class _C> back_insert_iterator<_C> back_inserter(_C& __c);
/* <iostream>, <sstream>, <iomanip> */
class ios_base {
 public:
  typedef unsigned fmtflags;
  static const fmtflags fixed = 4, scientific = 256, hex = 8, dec = 2;
  fmtflags setf(fmtflags __f);
  long precision(long __p);
};
class ostream : public ios_base {
 public:
  ostream& operator<<(bool __v);
  ostream& operator<<(short __v);
  ostream& operator<<(unsigned short __v);
  ostream& operator<<(int __v);
  ostream& operator<<(unsigned int __v);
  ostream& operator<<(long __v);
  ostream& operator<<(unsigned long __v);
  ostream& operator<<(long long __v);
  ostream& operator<<(unsigned long long __v);
  ostream& operator<<(float __v);
  ostream& operator<<(double __v);
  ostream& operator<<(const void* __p);
  ostream& operator<<(nullptr_t);
  ostream& operator<<(ostream& (*__pf)(ostream&));
  ostream& operator<<(ios_base& (*__pf)(ios_base&));
  ostream& write(const char* __s, long __n);
  ostream& flush();
};
ostream& operator<<(ostream& __os, char __c);
ostream& operator<<(ostream& __os, const char* __s);
ostream& operator<<(ostream& __os, const string& __s);
ostream& operator<<(ostream& __os, string_view __s);
class istream : public ios_base {
 public:
  istream& operator>>(int& __v);
  istream& operator>>(float& __v);
  istream& operator>>(double& __v);
  istream& operator>>(long& __v);
};
istream& operator>>(istream& __is, string& __s);
istream& getline(istream& __is, string& __s);
class iostream : public istream, public ostream {};
extern ostream cout;
extern ostream cerr;
extern ostream clog;
extern istream cin;
ostream& endl(ostream& __os);
ostream& flush(ostream& __os);
ios_base& fixed(ios_base& __b);
ios_base& scientific(ios_base& __b);
ios_base& hex(ios_base& __b);
ios_base& dec(ios_base& __b);
ios_base& boolalpha(ios_base& __b);
class ostringstream : public ostream {
 public:
  ostringstream();
  explicit ostringstream(const string& __s);
  string str() const;
  void str(const string& __s);
};
class istringstream : public istream {
 public:
  istringstream();
  explicit istringstream(const string& __s);
  string str() const;
};
class stringstream : public iostream {
 public:
  stringstream();
  explicit stringstream(const string& __s);
  string str() const;
  void str(const string& __s);
};
struct _Setprecision { int __n; };
struct _Setw { int __n; };
struct _Setfill { char __c; };
_Setprecision setprecision(int __n);
_Setw setw(int __n);
_Setfill setfill(char __c);
ostream& operator<<(ostream& __os, _Setprecision __f);
ostream& operator<<(ostream& __os, _Setw __f);
ostream& operator<<(ostream& __os, _Setfill __f);
}  // namespace std
#endif
