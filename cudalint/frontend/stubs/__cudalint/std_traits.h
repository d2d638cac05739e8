#pragma once
/* cudalint stub: the rest of <type_traits> (std_core.h has the most used ones), built on clang's type-trait
 * intrinsics. Included by <type_traits>, <utility>, <tuple>, <memory>, <functional> and the host library. */
#pragma clang system_header
#ifndef __CUDALINT_STD_TRAITS_H
#define __CUDALINT_STD_TRAITS_H
#include <__cudalint/std_core.h>
namespace std {
template <class _T> struct type_identity { typedef _T type; };
template <class _T> using type_identity_t = _T;
template <class _T> struct remove_volatile { typedef __remove_volatile(_T) type; };
template <class _T> struct remove_cvref { typedef __remove_cvref(_T) type; };
template <class _T> struct remove_extent { typedef __remove_extent(_T) type; };
template <class _T> struct remove_all_extents { typedef __remove_all_extents(_T) type; };
template <class _T> using remove_volatile_t = __remove_volatile(_T);
template <class _T> using remove_extent_t = __remove_extent(_T);
template <class _T> using remove_all_extents_t = __remove_all_extents(_T);
template <class _T> struct add_const { typedef const _T type; };
template <class _T> struct add_volatile { typedef volatile _T type; };
template <class _T> struct add_cv { typedef const volatile _T type; };
template <class _T> struct add_pointer { typedef __add_pointer(_T) type; };
template <class _T> struct add_lvalue_reference { typedef __add_lvalue_reference(_T) type; };
template <class _T> struct add_rvalue_reference { typedef __add_rvalue_reference(_T) type; };
template <class _T> using add_const_t = const _T;
template <class _T> using add_pointer_t = __add_pointer(_T);
template <class _T> using add_lvalue_reference_t = __add_lvalue_reference(_T);
template <class _T> using add_rvalue_reference_t = __add_rvalue_reference(_T);
template <class _T> struct make_signed { typedef __make_signed(_T) type; };
template <class _T> struct make_unsigned { typedef __make_unsigned(_T) type; };
template <class _T> using make_signed_t = __make_signed(_T);
template <class _T> using make_unsigned_t = __make_unsigned(_T);
template <class _T> struct underlying_type { typedef __underlying_type(_T) type; };
template <class _T> using underlying_type_t = __underlying_type(_T);
#define __CL_TRAIT(name, expr) template <class _T> struct name : bool_constant<expr> {}; \
  template <class _T> inline constexpr bool name##_v = expr;
__CL_TRAIT(is_volatile, __is_volatile(_T)) __CL_TRAIT(is_null_pointer, __is_nullptr(_T)) __CL_TRAIT(is_array, __is_array(_T))
__CL_TRAIT(is_lvalue_reference, __is_lvalue_reference(_T)) __CL_TRAIT(is_rvalue_reference, __is_rvalue_reference(_T))
__CL_TRAIT(is_member_pointer, __is_member_pointer(_T)) __CL_TRAIT(is_enum, __is_enum(_T)) __CL_TRAIT(is_union, __is_union(_T))
__CL_TRAIT(is_class, __is_class(_T)) __CL_TRAIT(is_function, __is_function(_T)) __CL_TRAIT(is_fundamental, __is_fundamental(_T))
__CL_TRAIT(is_scalar, __is_scalar(_T)) __CL_TRAIT(is_object, __is_object(_T)) __CL_TRAIT(is_compound, __is_compound(_T))
__CL_TRAIT(is_empty, __is_empty(_T)) __CL_TRAIT(is_polymorphic, __is_polymorphic(_T)) __CL_TRAIT(is_abstract, __is_abstract(_T))
__CL_TRAIT(is_final, __is_final(_T)) __CL_TRAIT(is_pod, __is_pod(_T)) __CL_TRAIT(is_trivial, __is_trivial(_T))
__CL_TRAIT(is_standard_layout, __is_standard_layout(_T)) __CL_TRAIT(is_trivially_copyable, __is_trivially_copyable(_T))
__CL_TRAIT(is_trivially_destructible, __is_trivially_destructible(_T)) __CL_TRAIT(is_destructible, __is_destructible(_T))
__CL_TRAIT(is_default_constructible, __is_constructible(_T)) __CL_TRAIT(is_copy_constructible, __is_constructible(_T, const _T&))
__CL_TRAIT(is_move_constructible, __is_constructible(_T, _T&&)) __CL_TRAIT(is_copy_assignable, __is_assignable(_T&, const _T&))
__CL_TRAIT(is_move_assignable, __is_assignable(_T&, _T&&))
__CL_TRAIT(is_trivially_default_constructible, __is_trivially_constructible(_T))
#undef __CL_TRAIT
template <class _T> inline constexpr bool is_signed_v = __is_signed(_T);
template <class _T> inline constexpr bool is_unsigned_v = __is_unsigned(_T);
template <class _T> inline constexpr bool is_pointer_v = __is_pointer(_T);
template <class _T> inline constexpr bool is_reference_v = __is_reference(_T);
template <class _T> inline constexpr bool is_const_v = __is_const(_T);
template <class _T> inline constexpr bool is_void_v = __is_void(_T);
template <class _T, class... _A> struct is_constructible : bool_constant<__is_constructible(_T, _A...)> {};
template <class _T, class... _A> inline constexpr bool is_constructible_v = __is_constructible(_T, _A...);
template <class _T, class... _A> struct is_trivially_constructible : bool_constant<__is_trivially_constructible(_T, _A...)> {};
template <class _T, class... _A> struct is_nothrow_constructible : bool_constant<__is_nothrow_constructible(_T, _A...)> {};
template <class _T, class _U> struct is_assignable : bool_constant<__is_assignable(_T, _U)> {};
template <class _B, class _D> struct is_base_of : bool_constant<__is_base_of(_B, _D)> {};
template <class _B, class _D> inline constexpr bool is_base_of_v = __is_base_of(_B, _D);
template <class _F, class _T> struct is_convertible : bool_constant<__is_convertible_to(_F, _T)> {};
template <class _F, class _T> inline constexpr bool is_convertible_v = __is_convertible_to(_F, _T);
template <class _T> struct alignment_of : integral_constant<size_t, alignof(_T)> {};
template <class _T> struct rank : integral_constant<size_t, __array_rank(_T)> {};
template <class _T, unsigned _I = 0> struct extent : integral_constant<size_t, __array_extent(_T, _I)> {};
template <size_t _Len, size_t _Align = 16> struct aligned_storage { struct type { alignas(_Align) unsigned char __data[_Len]; }; };
template <class... _T> struct common_type {};
template <class _T> struct common_type<_T> { typedef __decay(_T) type; };
template <class _T, class _U> struct common_type<_T, _U> { typedef __decay(decltype(true ? declval<_T>() : declval<_U>())) type; };
template <class _T, class _U, class... _R> struct common_type<_T, _U, _R...> : common_type<typename common_type<_T, _U>::type, _R...> {};
template <class... _T> using common_type_t = typename common_type<_T...>::type;
template <class...> using void_t = void;
template <class... _B> struct conjunction : true_type {};
template <class _B1, class... _B> struct conjunction<_B1, _B...> : conditional<bool(_B1::value), conjunction<_B...>, _B1>::type {};
template <class... _B> struct disjunction : false_type {};
template <class _B1, class... _B> struct disjunction<_B1, _B...> : conditional<bool(_B1::value), _B1, disjunction<_B...>>::type {};
template <class _B> struct negation : bool_constant<!bool(_B::value)> {};
template <class... _B> inline constexpr bool conjunction_v = conjunction<_B...>::value;
template <class... _B> inline constexpr bool disjunction_v = disjunction<_B...>::value;
template <class _F, class... _A> struct invoke_result { typedef decltype(declval<_F>()(declval<_A>()...)) type; };
template <class _F, class... _A> using invoke_result_t = typename invoke_result<_F, _A...>::type;
template <class _S> struct result_of;
template <class _F, class... _A> struct result_of<_F(_A...)> : invoke_result<_F, _A...> {};
template <class _S> using result_of_t = typename result_of<_S>::type;
template <class _T, _T... _I> struct integer_sequence { typedef _T value_type; static constexpr size_t size() noexcept { return sizeof...(_I); } };
template <size_t... _I> using index_sequence = integer_sequence<size_t, _I...>;
template <class _T, _T _N> using make_integer_sequence = __make_integer_seq<integer_sequence, _T, _N>;
template <size_t _N> using make_index_sequence = make_integer_sequence<size_t, _N>;
template <class... _T> using index_sequence_for = make_index_sequence<sizeof...(_T)>;
constexpr bool is_constant_evaluated() noexcept { return __builtin_is_constant_evaluated(); }
template <class _T> constexpr const _T& as_const(_T& __t) noexcept { return __t; }
template <class _T> constexpr _T* addressof(_T& __r) noexcept { return __builtin_addressof(__r); }
template <class _T, class _U = _T> _T exchange(_T& __obj, _U&& __new);
struct in_place_t { explicit in_place_t() = default; };
inline constexpr in_place_t in_place{};
}  // namespace std
#endif
