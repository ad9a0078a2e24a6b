// Helpers shared by the topi computes: named axes and shape checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "minitvm/support/error.h"
#include "minitvm/te/tensor.h"

namespace minitvm::topi::nn::detail {

/** A compute whose axes get the given names (TOPI's lambda parameter names). */
te::Tensor named_compute(const std::vector<int64_t>& shape,
                         const std::vector<std::string>& axis_names,
                         const std::function<Expr(const std::vector<Var>&)>& f,
                         const std::string& name, const std::string& tag);

/** An int32 constant (TVM's shapes and indices are int32); int64 only when it does not fit. */
inline Expr I(int64_t v) {
  return (v >= INT32_MIN && v <= INT32_MAX) ? Expr(static_cast<int>(v)) : Expr(v);
}

inline std::vector<Expr> to_exprs(const std::vector<int64_t>& s) {
  std::vector<Expr> r;
  for (int64_t v : s) r.push_back(I(v));
  return r;
}

/** Axis names ax0, ax1, ... (TOPI's names for elementwise computes). */
inline std::vector<std::string> ax_names(size_t n) {
  std::vector<std::string> r;
  for (size_t i = 0; i < n; ++i) r.push_back("ax" + std::to_string(i));
  return r;
}

/** A compute's axis variables as index expressions. */
inline std::vector<Expr> as_exprs(const std::vector<Var>& v) {
  return std::vector<Expr>(v.begin(), v.end());
}

/** Cast to `t` unless already of that type. */
inline Expr cast_to(DataType t, Expr e) {
  return e.dtype() == t ? e : ir::cast(t, e);
}

/** Read pair attributes: 1 value -> both, 2 values as given. */
std::pair<int64_t, int64_t> pair_of(const std::vector<int64_t>& v, const char* op,
                                    const char* what);

}  // namespace minitvm::topi::nn::detail
