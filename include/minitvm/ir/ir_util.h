/** \file
 * Small IR utilities: substitution, free-variable queries, structural equality, printing.
 */
#pragma once

#include <iosfwd>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/ir/functor.h"

namespace minitvm::ir {

using VarMap = std::unordered_map<const VarNode*, Expr>;

/** Replace variables by expressions. */
Expr substitute(const Expr& e, const VarMap& vmap);
Stmt substitute(const Stmt& s, const VarMap& vmap);

/** Whether `e` (or `s`) uses any variable for which `pred` holds. */
bool uses_var(const Expr& e, const std::function<bool(const VarNode*)>& pred);
bool uses_var(const Stmt& s, const std::function<bool(const VarNode*)>& pred);
inline bool uses_var(const Expr& e, const VarNode* v) {
  return uses_var(e, [v](const VarNode* x) { return x == v; });
}
inline bool uses_var(const Stmt& s, const VarNode* v) {
  return uses_var(s, [v](const VarNode* x) { return x == v; });
}

/** Structural equality. Variables compare by identity unless `map_free_vars`, in which case
 *  variables are matched consistently by first occurrence (alpha-equivalence). */
bool structural_equal(const Expr& a, const Expr& b, bool map_free_vars = false);
bool structural_equal(const Stmt& a, const Stmt& b, bool map_free_vars = false);

/** TVM v0.6-style text. */
std::ostream& operator<<(std::ostream& os, const Expr& e);
std::ostream& operator<<(std::ostream& os, const Stmt& s);
std::ostream& operator<<(std::ostream& os, const PrimFunc& f);
std::ostream& operator<<(std::ostream& os, const Range& r);
std::ostream& operator<<(std::ostream& os, const IterVar& iv);
std::string to_string(const Expr& e);
std::string to_string(const Stmt& s);
std::string to_string(const PrimFunc& f);

}  // namespace minitvm::ir
