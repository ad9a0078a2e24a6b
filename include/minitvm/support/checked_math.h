/** \file
 * Overflow-checked int64 arithmetic for sizes that come from users (shapes, pooling parameters,
 * tensor files). Each helper returns std::nullopt instead of wrapping, so the caller can raise
 * its own error naming the value; nothing here throws.
 *
 *   auto n = checked_product(shape);            // nullopt: a negative dimension or overflow
 *   auto b = checked_mul(*n, dtype.bytes());    // nullopt: the byte count overflows
 */
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

namespace minitvm {

inline std::optional<int64_t> checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/** Sum of all values; nullopt on overflow. */
inline std::optional<int64_t> checked_sum(std::initializer_list<int64_t> values) {
  int64_t acc = 0;
  for (int64_t v : values)
    if (__builtin_add_overflow(acc, v, &acc)) return std::nullopt;
  return acc;
}

/** Element count of a shape: nullopt when a dimension is negative or the product overflows int64
 * (a zero dimension gives 0 even when the other dimensions' product would overflow). */
inline std::optional<int64_t> checked_product(const std::vector<int64_t>& dims) {
  for (int64_t d : dims)
    if (d < 0) return std::nullopt;
  for (int64_t d : dims)
    if (d == 0) return 0;
  int64_t acc = 1;
  for (int64_t d : dims)
    if (__builtin_mul_overflow(acc, d, &acc)) return std::nullopt;
  return acc;
}

}  // namespace minitvm
