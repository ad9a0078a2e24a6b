// Data layouts as TVM writes them ("NCHW", "NCHW8c", "OIHW8i16o"): upper-case letters are primal
// axes, a number followed by the lower-case letter is a sub-axis of that many elements. A primal
// axis with a sub-axis holds the outer part: C = c_outer * 8 + c_inner for "NCHW8c". Used by the
// layout_transform op (type rule, te compute, reference) and the alter_op_layout pass.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace minitvm::relay::detail {

struct Layout {
  struct Axis {
    char primal = 0;     ///< upper-case name of the primal axis ('C' also for the sub-axis "8c")
    int64_t factor = 0;  ///< 0: a primal axis; > 0: a sub-axis of this many elements
  };
  std::string name;
  std::vector<Axis> axes;

  /** Parse (CompileError "<what>: layout '...' ..." for a malformed string). */
  static Layout parse(const std::string& s, const std::string& what = "layout");
  /** The sub-axis factor of `primal` (0 when it has none). */
  int64_t factor_of(char primal) const;
  /** Position of the primal axis / of its sub-axis (-1 when absent). */
  int primal_index(char primal) const;
  int sub_index(char primal) const;
  /** The full extent of every primal axis of a tensor of `shape` in this layout. */
  std::map<char, int64_t> full_extents(const std::vector<int64_t>& shape) const;
  /** The shape in this layout of a tensor of these full extents (CompileError when a factor does
   *  not divide its axis). */
  std::vector<int64_t> shape_of(const std::map<char, int64_t>& full, const std::string& what) const;
  /** "NCHW8c" for primal "NCHW" blocked on C by 8 (factor 0: the primal layout itself). */
  static std::string blocked(const std::string& primal, char axis, int64_t factor);
};

/** The source index of a layout_transform for one destination index: the destination index is
 *  turned into full primal coordinates, then split by the source's factors. `T` is int64_t or a
 *  te expression; `lit` makes a T of an integer, `div`/`mod` are floor division and modulo on T. */
template <typename T, typename Lit, typename Div, typename Mod>
std::vector<T> layout_source_index(const Layout& src, const Layout& dst,
                                   const std::vector<T>& dst_idx, Lit lit, Div div, Mod mod) {
  std::array<T, 26>
      full{};  // by primal letter (a fixed array: the reference runs this per element)
  for (size_t i = 0; i < dst.axes.size(); ++i) {
    const auto& a = dst.axes[i];
    if (a.factor != 0) continue;
    int sub = dst.sub_index(a.primal);
    full[a.primal - 'A'] =
        sub < 0 ? dst_idx[i] : dst_idx[i] * lit(dst.axes[sub].factor) + dst_idx[sub];
  }
  std::vector<T> r;
  r.reserve(src.axes.size());
  for (const auto& a : src.axes) {
    const T& f = full[a.primal - 'A'];
    if (a.factor != 0) {
      r.push_back(mod(f, lit(a.factor)));
    } else {
      int64_t sf = src.factor_of(a.primal);
      r.push_back(sf == 0 ? f : div(f, lit(sf)));
    }
  }
  return r;
}

}  // namespace minitvm::relay::detail
