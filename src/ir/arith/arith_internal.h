/** \file
 * Internals shared by the arithmetic analysis files (not a public header).
 *
 * - `ConstBound`/`ConstBoundAnalyzer`: constant integer bounds of an expression given constant
 *   bounds of its variables (TVM's ConstIntBound), with saturating +-infinity.
 * - `LinearForm`: an integer expression as `sum(coeff_i * atom_i) + base`, where atoms are the
 *   non-linear parts (variables, divisions, min/max, loads, products of non-constants). Built from
 *   an already simplified expression and rebuilt in TVM's printed order.
 * - `Simplifier`: the one mutator behind simplify(Expr), simplify(Stmt) and can_prove; it keeps the
 *   ranges of the variables in scope.
 */
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "minitvm/ir/arith.h"
#include "minitvm/ir/functor.h"
#include "minitvm/ir/ir_util.h"

namespace minitvm::ir::arith {

constexpr int64_t kPosInf = std::numeric_limits<int64_t>::max();
constexpr int64_t kNegInf = std::numeric_limits<int64_t>::min();

/** Saturating arithmetic on bounds (kPosInf/kNegInf stick). */
int64_t sat_add(int64_t a, int64_t b);
int64_t sat_mul(int64_t a, int64_t b);
int64_t floordiv_c(int64_t a, int64_t b);
int64_t floormod_c(int64_t a, int64_t b);

struct ConstBound {
  int64_t lo = kNegInf;
  int64_t hi = kPosInf;
  static ConstBound everything() { return {}; }
  static ConstBound point(int64_t v) { return {v, v}; }
  bool is_const() const { return lo == hi && lo != kNegInf && lo != kPosInf; }
};

/** Constant bounds of integer expressions. Variable bounds come from a RangeMap (computed lazily,
 *  the range's own min/extent bounded recursively) or are set explicitly (let-bound variables). */
class ConstBoundAnalyzer {
 public:
  explicit ConstBoundAnalyzer(const RangeMap* ranges) : ranges_(ranges) {}
  ConstBound bound(const Expr& e);
  /** The values of a type (+-infinity for 64-bit and non-integers). */
  static ConstBound type_bound(DataType t);
  /** Override the bound of v (e.g. a let variable); returns the previous entry for restore(). */
  std::optional<ConstBound> set(const VarNode* v, ConstBound b);
  void restore(const VarNode* v, std::optional<ConstBound> prev);
  /** Forget memoised range bounds (a range changed). */
  void clear_memo() { memo_.clear(); }

 private:
  ConstBound var_bound(const VarNode* v);
  const RangeMap* ranges_;
  std::unordered_map<const VarNode*, ConstBound> memo_;
  std::unordered_map<const VarNode*, ConstBound> overrides_;
};

struct Term {
  Expr atom;
  int64_t coeff;
};

struct LinearForm {
  DataType dtype;
  std::vector<Term> terms;
  int64_t base = 0;
  /** Add coeff*atom, merging with a structurally equal atom (dropping zero coefficients). */
  void add(const Expr& atom, int64_t coeff);
  void add(const LinearForm& o, int64_t scale);
  bool is_const() const { return terms.empty(); }
};

/** Whether linear canonicalisation applies to type t (signed scalar integers). */
inline bool is_linear_type(DataType t) {
  return t.is_int() && t.is_scalar();
}
/** Decompose an (already simplified) expression: Add/Sub/Mul-by-constant/IntImm are linear. */
LinearForm to_linear(const Expr& e);
/** Rebuild in TVM's order: positive terms, the constant, then subtracted negative terms. */
Expr from_linear(const LinearForm& f);
/** `coeff*atom` as printed: atom, or (atom*coeff). */
Expr scaled_atom(const Expr& atom, int64_t coeff);

/** The simplifier; expression rules in simplify_expr.cc / simplify_div.cc, statements in
 *  simplify_stmt.cc. */
class Simplifier : public IRMutator {
 public:
  explicit Simplifier(const RangeMap& ranges) : ranges_(ranges), bounds_(&ranges_) {}
  using IRMutator::mutate;

  ConstBound bound(const Expr& e) { return bounds_.bound(e); }
  /** Conservative proof that the (simplified, integer) d satisfies d < 0 / d <= 0 / d >= 0. */
  bool prove_negative(const Expr& d);
  bool prove_non_positive(const Expr& d);
  bool prove_non_negative(const Expr& d);
  /** Simplify a linear form as a whole (term recombination) and rebuild it. */
  Expr normalize(LinearForm f);
  /** floordiv/floormod (trunc: truncdiv/truncmod) of a simplified numerator by a constant c > 0. */
  Expr div_by_const(const Expr& num, int64_t c, bool is_mod, bool trunc);

  /** Facts from a branch condition: constant bounds of variables compared with constants in a
   *  conjunction (likely() unwrapped). Returns what to hand to unassume() when leaving the branch.
   */
  std::vector<std::pair<const VarNode*, std::optional<ConstBound>>> assume(const Expr& cond);
  void unassume(const std::vector<std::pair<const VarNode*, std::optional<ConstBound>>>& saved);
  /** Scoped range of a variable. */
  void push_range(const VarNode* v, const Range& r);
  void pop_range(const VarNode* v);

 protected:
#define MINITVM_SIMP_DECL(N) Expr visit(const N##Node* op, const Expr& self) override;
  MINITVM_SIMP_DECL(Cast)
  MINITVM_SIMP_DECL(Add)
  MINITVM_SIMP_DECL(Sub)
  MINITVM_SIMP_DECL(Mul)
  MINITVM_SIMP_DECL(Div)
  MINITVM_SIMP_DECL(Mod)
  MINITVM_SIMP_DECL(FloorDiv)
  MINITVM_SIMP_DECL(FloorMod)
  MINITVM_SIMP_DECL(Min)
  MINITVM_SIMP_DECL(Max)
  MINITVM_SIMP_DECL(EQ)
  MINITVM_SIMP_DECL(NE)
  MINITVM_SIMP_DECL(LT)
  MINITVM_SIMP_DECL(LE)
  MINITVM_SIMP_DECL(GT)
  MINITVM_SIMP_DECL(GE)
  MINITVM_SIMP_DECL(And)
  MINITVM_SIMP_DECL(Or)
  MINITVM_SIMP_DECL(Not)
  MINITVM_SIMP_DECL(Select)
  MINITVM_SIMP_DECL(Let)
  MINITVM_SIMP_DECL(Call)
  MINITVM_SIMP_DECL(Reduce)
#undef MINITVM_SIMP_DECL
#define MINITVM_SIMP_DECL(N) Stmt visit(const N##Node* op, const Stmt& self) override;
  MINITVM_SIMP_DECL(For)
  MINITVM_SIMP_DECL(AttrStmt)
  MINITVM_SIMP_DECL(LetStmt)
  MINITVM_SIMP_DECL(IfThenElse)
  MINITVM_SIMP_DECL(AssertStmt)
  MINITVM_SIMP_DECL(Block)
#undef MINITVM_SIMP_DECL

 private:
  Expr add_sub(const Expr& a, const Expr& b, int64_t sign);
  Expr vector_binary(NodeKind k, const Expr& a, const Expr& b);
  Expr compare(NodeKind k, Expr a, Expr b);
  Expr div_mod(NodeKind k, const Expr& self, const Expr& a, const Expr& b);
  Expr min_max(bool is_min, const Expr& a, const Expr& b);
  std::optional<Expr> div_linear(const LinearForm& f, int64_t c, bool is_mod, bool trunc,
                                 int depth);
  bool recombine_once(LinearForm& f);
  bool prove_symbolic_upper(const Expr& d, int64_t bound);

  RangeMap ranges_;
  ConstBoundAnalyzer bounds_;
  std::vector<std::pair<const VarNode*, std::optional<Range>>> saved_;
};

}  // namespace minitvm::ir::arith
