/** \file
 * Arithmetic analysis and simplification over index expressions.
 *
 * - `IntervalSet`: a symbolic closed interval [min, max] of an integer expression (either bound may
 *   be "unbounded" = undefined Expr). `eval_interval(e, dom)` bounds `e` when each variable in
 * `dom` ranges over its interval (variables not in `dom` stay symbolic: the interval of `x` is [x,
 * x]).
 * - `simplify(e, ranges)`: constant folding, canonical linear forms (`(x*4 + 2) - (x*4)` -> `2`,
 *   like terms combined, constants last), div/mod with known bounds (`floordiv(x, 8)` -> 0 when
 *   0 <= x < 8; `floormod(x*8 + y, 8)` -> y when 0 <= y < 8), min/max and comparisons decided from
 *   bounds, removal of always-true/false conditions. `ranges` maps loop variables to their ranges.
 * - `can_prove(cond, ranges)`: true only when cond holds for every value in the ranges.
 *
 * Canonical integer form (signed scalar ints): a sum of `coeff*atom` terms plus a constant, atoms
 * being the non-linear parts (variables, floordiv/floormod, min/max, loads, products of
 * non-constants). Rebuilt as TVM prints it: positive terms in order of first appearance, then the
 * constant (`(x + -1)`), then subtracted negative terms (`((y*2) + 1) - (x*2)`). Comparisons move
 * constants right and divide by the coefficients' gcd (`(x + 1) < 5` -> `x < 4`, `x > 5` ->
 * `5 < x`). Floats are only constant-folded, never reassociated. Proofs use constant bounds of
 * the variables first and, when some range is symbolic (`i` in [0, n)), symbolic intervals.
 *
 * All functions are pure and deterministic (the implementation lives in src/ir/arith/).
 */
#pragma once

#include <optional>
#include <unordered_map>
#include <vector>

#include "minitvm/ir/expr.h"
#include "minitvm/ir/stmt.h"

namespace minitvm::ir {

struct IntervalSet {
  Expr min;  ///< undefined = -infinity
  Expr max;  ///< undefined = +infinity (inclusive bound)
  static IntervalSet point(Expr e) { return {e, e}; }
  static IntervalSet everything() { return {Expr(), Expr()}; }
  /** [r.min, r.min + r.extent - 1] */
  static IntervalSet from_range(const Range& r);
  bool is_bounded() const { return min.defined() && max.defined(); }
  bool is_point() const;
};

using RangeMap = std::unordered_map<const VarNode*, Range>;
using IntervalMap = std::unordered_map<const VarNode*, IntervalSet>;

/** Bound e as its variables range over dom. Non-integral or unanalysable parts -> unbounded. */
IntervalSet eval_interval(const Expr& e, const IntervalMap& dom);
/** Union (hull) of two intervals. */
IntervalSet interval_union(const IntervalSet& a, const IntervalSet& b);

/** Simplify an expression under the given variable ranges. */
Expr simplify(const Expr& e, const RangeMap& ranges = {});
/** Simplify every expression of a statement. For loop variables get [min, min + extent) and
 *  thread-extent AttrStmt IterVars [0, extent) while their bodies are simplified; a branch
 *  condition `v < c` / `c < v` / `v == c` (inside likely() and &&) bounds v in the then-case.
 *  Removes if-branches and likely() guards that are provably true/false, loops of extent 0 (and
 *  loops/ifs left empty), substitutes loops of extent 1 and lets of constants/variables. */
Stmt simplify(const Stmt& s, const RangeMap& ranges = {});
/** True only if cond is provably true for all values in ranges. */
bool can_prove(const Expr& cond, const RangeMap& ranges = {});
/** A constant upper bound (inclusive) of the integer e over the ranges (e.g. for a buffer
 *  extent): stores it in *out and returns true, or returns false when e is unbounded above. */
bool const_upper_bound(const Expr& e, const RangeMap& ranges, int64_t* out);
/** A constant lower bound (inclusive) of the integer e over the ranges; false when unbounded. */
bool const_lower_bound(const Expr& e, const RangeMap& ranges, int64_t* out);

/** A vector index whose lane i is `base + offsets[i]` (base scalar, offsets constants). */
struct LaneOffsets {
  Expr base;
  std::vector<int64_t> offsets;
  int64_t min_offset() const;
  int64_t span() const;  ///< max - min + 1: the elements one dense access covering every lane reads
};
/** The lane offsets of a vector integer index, when they are constants: Ramp with a constant
 * stride, Broadcast, their sums and differences, products with a constant broadcast, casts, and
 *  floordiv/floormod by a constant broadcast where the base is provably a multiple of it (e.g.
 *  `floordiv(ramp(x*48, 1, 48), 3)` -> base x*16, offsets 0,0,0,1,1,1,...). Otherwise nullopt. */
std::optional<LaneOffsets> lane_offsets(const Expr& index);

}  // namespace minitvm::ir
