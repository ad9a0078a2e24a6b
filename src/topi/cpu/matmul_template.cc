// "matmul.llvm" (topi, registered with the tuner): the example tuning template, C[M, N] = A[M, K] *
// B[K, N] on the CPU.
//
// Schedule: C is tiled by (tile_y, tile_x); each tile accumulates in a `local` cache (register
// block) computed at the tile, whose reduction is split by tile_k and ordered (ko, y, ki, x) so the
// innermost loop runs along N and is vectorized; the outer row tiles run in parallel.
// Knobs (in definition order, least significant index digit first): tile_y (M, inner <= 32),
// tile_x (N, inner <= 64), tile_k (K, inner <= 64). Args: [M, N, K] or [M, N, K, dtype].
#include <cmath>

#include "minitvm/autotune/task.h"
#include "minitvm/support/error.h"

namespace minitvm::topi::cpu {
namespace {

using namespace autotune;

int64_t arg_int(const Json& args, size_t i, const char* what) {
  MINITVM_USER_CHECK(args.size() > i && args[i].is_number_integer() && args[i].get<int64_t>() > 0)
      << "matmul template: argument " << i << " (" << what << ") must be a positive integer, got "
      << (args.size() > i ? args[i].dump() : std::string("nothing"));
  return args[i].get<int64_t>();
}

TemplateResult matmul_llvm(ConfigEntity& cfg, const Json& args) {
  MINITVM_USER_CHECK(args.is_array() && (args.size() == 3 || args.size() == 4))
      << "matmul template: args are [M, N, K] or [M, N, K, dtype], got " << args.dump();
  int64_t m = arg_int(args, 0, "M"), n = arg_int(args, 1, "N"), k = arg_int(args, 2, "K");
  std::string dtype = args.size() == 4 ? args[3].get<std::string>() : "float32";
  MINITVM_USER_CHECK(dtype == "float32" || dtype == "float64")
      << "matmul template: dtype " << dtype;
  DataType dt = DataType::Float(dtype == "float32" ? 32 : 64);

  SplitOptions oy;
  oy.max_factor = 32;
  cfg.define_split("tile_y", m, oy);
  SplitOptions ox;
  ox.max_factor = 64;
  cfg.define_split("tile_x", n, ox);
  SplitOptions ok;
  ok.max_factor = 64;
  cfg.define_split("tile_k", k, ok);

  te::Tensor A = te::placeholder({Expr(m), Expr(k)}, dt, "A");
  te::Tensor B = te::placeholder({Expr(k), Expr(n)}, dt, "B");
  te::IterVar rk = te::reduce_axis({0, Expr(k)}, "k");
  te::Tensor C = te::compute(
      {Expr(m), Expr(n)}, [&](Var i, Var j) { return te::sum(A(i, rk) * B(rk, j), {rk}); }, "C");

  te::Schedule s = te::create_schedule({C.op()});
  te::Tensor CC = s.cache_write(C, "local");
  int64_t ty = cfg.split("tile_y").size.at(1), tx = cfg.split("tile_x").size.at(1);
  int64_t tk = cfg.split("tile_k").size.at(1);
  auto [yo, yi] = s[C].split(C.op().axis()[0], Expr(ty));
  auto [xo, xi] = s[C].split(C.op().axis()[1], Expr(tx));
  s[C].reorder({yo, xo, yi, xi});
  s[C].parallel(yo);
  if (tx > 1) s[C].vectorize(xi);
  s[CC].compute_at(s[C], xo);
  auto yc = CC.op().axis()[0], xc = CC.op().axis()[1];
  auto [ko, ki] = s[CC].split(CC.op().reduce_axis()[0], Expr(tk));
  s[CC].reorder({ko, yc, ki, xc});
  if (tx > 1) s[CC].vectorize(xc);

  TemplateResult r;
  r.schedule = s;
  r.args = {A, B, C};
  r.flop = 2.0 * double(m) * double(n) * double(k);
  return r;
}

}  // namespace

MINITVM_REGISTER_TEMPLATE("matmul.llvm", matmul_llvm);

}  // namespace minitvm::topi::cpu
