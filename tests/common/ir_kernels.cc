#include "common/ir_kernels.h"

#include <limits>

namespace minitvm::testing {

using namespace ir;

Param make_param(const char* name, DataType t, std::vector<int64_t> shape) {
  std::vector<Expr> s;
  for (int64_t d : shape) s.push_back(make_const(DataType::Int(32), d));
  return {Buffer::make(name, t, s)};
}

PrimFunc make_func(const char* name, const std::vector<Param>& params, Stmt body) {
  std::vector<Var> vars;
  std::map<const VarNode*, Buffer> bmap;
  for (auto& p : params) {
    vars.push_back(p.var());
    bmap[p.var().get()] = p.buf;
  }
  return PrimFunc::make(name, vars, bmap, body);
}

IterVar thread_axis(const char* tag, int64_t extent) {
  return IterVar(Range(0, make_const(DataType::Int(32), extent)), Var(tag),
                 IterVarType::ThreadIndex, tag);
}

Stmt bind(const IterVar& iv, Stmt body) {
  return AttrStmtNode::make(iv, AttrKind::ThreadExtent, iv.dom().extent(), body);
}

static Expr load(const Param& p, Expr idx) {
  return LoadNode::make(p.buf->dtype, p.var(), idx);
}
static Stmt store(const Param& p, Expr v, Expr idx) {
  return StoreNode::make(p.var(), v, idx);
}

PrimFunc vector_add() {
  auto A = make_param("A", DataType::Float(32), {kAddN});
  auto B = make_param("B", DataType::Float(32), {kAddN});
  auto C = make_param("C", DataType::Float(32), {kAddN});
  IterVar bx = thread_axis("blockIdx.x", (kAddN + 63) / 64), tx = thread_axis("threadIdx.x", 64);
  Expr i = Expr(bx) * 64 + Expr(tx);
  Stmt s = IfThenElseNode::make(likely(i < static_cast<int>(kAddN)),
                                store(C, load(A, i) + load(B, i), i));
  return make_func("add", {A, B, C}, bind(bx, bind(tx, s)));
}

PrimFunc tiled_matmul() {
  const int T = static_cast<int>(kTile), K = static_cast<int>(kMM), N = static_cast<int>(kMM);
  auto A = make_param("A", DataType::Float(32), {kMM, kMM});
  auto B = make_param("B", DataType::Float(32), {kMM, kMM});
  auto C = make_param("C", DataType::Float(32), {kMM, kMM});
  IterVar by = thread_axis("blockIdx.y", kMM / kTile), bx = thread_axis("blockIdx.x", kMM / kTile);
  IterVar ty = thread_axis("threadIdx.y", kTile), tx = thread_axis("threadIdx.x", kTile);
  Var ash = Var::buffer("A.shared", DataType::Float(32));
  Var bsh = Var::buffer("B.shared", DataType::Float(32));
  Var cl = Var::buffer("C.local", DataType::Float(32));
  Var ko("k.outer"), ki("k.inner");
  Expr row = Expr(by) * T + Expr(ty), col = Expr(bx) * T + Expr(tx);
  Stmt load_a = StoreNode::make(
      ash, LoadNode::make(DataType::Float(32), A.var(), row * K + Expr(ko) * T + Expr(tx)),
      Expr(ty) * T + Expr(tx));
  Stmt load_b = StoreNode::make(
      bsh, LoadNode::make(DataType::Float(32), B.var(), (Expr(ko) * T + Expr(ty)) * N + col),
      Expr(ty) * T + Expr(tx));
  Expr acc = LoadNode::make(DataType::Float(32), cl, 0);
  Expr prod = LoadNode::make(DataType::Float(32), ash, Expr(ty) * T + Expr(ki)) *
              LoadNode::make(DataType::Float(32), bsh, Expr(ki) * T + Expr(tx));
  Stmt inner = ForNode::make(ki, 0, T, ForKind::Unrolled, StoreNode::make(cl, acc + prod, 0));
  Stmt kloop =
      ForNode::make(ko, 0, K / T, ForKind::Serial, BlockNode::make({load_a, load_b, inner}));
  Stmt body = BlockNode::make({StoreNode::make(cl, make_const(DataType::Float(32), 0.0), 0), kloop,
                               store(C, acc, row * N + col)});
  body = AllocateNode::make(cl, DataType::Float(32), {1}, StorageScope::Local, Expr(), body);
  body = AllocateNode::make(bsh, DataType::Float(32), {T * T}, StorageScope::Shared, Expr(), body);
  body = AllocateNode::make(ash, DataType::Float(32), {T * T}, StorageScope::Shared, Expr(), body);
  return make_func("matmul", {A, B, C}, bind(by, bind(bx, bind(ty, bind(tx, body)))));
}

PrimFunc float4_scale() {
  auto A = make_param("A", DataType::Float(32), {kCopyN});
  auto B = make_param("B", DataType::Float(32), {kCopyN});
  IterVar bx = thread_axis("blockIdx.x", kCopyN / 4 / 64), tx = thread_axis("threadIdx.x", 64);
  Expr base = (Expr(bx) * 64 + Expr(tx)) * 4;
  Expr ramp = RampNode::make(base, 1, 4);
  Expr v = LoadNode::make(DataType::Float(32, 4), A.var(), ramp) *
           BroadcastNode::make(make_const(DataType::Float(32), 2.0), 4);
  Stmt s = StoreNode::make(B.var(), v, ramp);
  return make_func("scale4", {A, B}, bind(bx, bind(tx, s)));
}

PrimFunc half_elementwise() {
  DataType h = DataType::Float(16), f = DataType::Float(32);
  auto A = make_param("A", h, {kHalfN});
  auto B = make_param("B", h, {kHalfN});
  auto C = make_param("C", h, {kHalfN});
  auto D = make_param("D", f, {kHalfN});
  IterVar tx = thread_axis("threadIdx.x", 128);
  Var j("j");
  Expr i = Expr(j) * 128 + Expr(tx);
  Expr a = load(A, i), b = load(B, i);
  Stmt c = store(C, max(a * b + make_const(h, 1.0), make_const(h, 0.0)), i);
  Expr ninf = make_const(h, -std::numeric_limits<double>::infinity());
  Stmt d = store(D, cast(f, max(a, ninf)) + cast(f, a), i);
  Stmt loop = ForNode::make(j, 0, 4, ForKind::Serial, BlockNode::make({c, d}));
  return make_func("half_ew", {A, B, C, D}, bind(tx, loop));
}

PrimFunc max_pairs() {
  auto A = make_param("A", DataType::Float(32), {2 * kPoolN});
  auto B = make_param("B", DataType::Float(32), {kPoolN});
  IterVar bx = thread_axis("blockIdx.x", kPoolN / 32), tx = thread_axis("threadIdx.x", 32);
  Expr i = Expr(bx) * 32 + Expr(tx);
  Expr v = max(max(load(A, i * 2), load(A, i * 2 + 1)),
               make_const(DataType::Float(32), -std::numeric_limits<double>::infinity()));
  return make_func("pool", {A, B}, bind(bx, bind(tx, store(B, v, i))));
}

PrimFunc two_kernels() {
  const int n = 256;
  auto A = make_param("A", DataType::Float(32), {n});
  auto Tm = make_param("T", DataType::Float(32), {n});
  auto B = make_param("B", DataType::Float(32), {n});
  IterVar bx0 = thread_axis("blockIdx.x", n / 128), tx0 = thread_axis("threadIdx.x", 128);
  IterVar bx1 = thread_axis("blockIdx.x", n / 64), tx1 = thread_axis("threadIdx.x", 64);
  Expr i0 = Expr(bx0) * 128 + Expr(tx0), i1 = Expr(bx1) * 64 + Expr(tx1);
  Stmt k0 = bind(bx0, bind(tx0, store(Tm, load(A, i0) * 3.0f, i0)));
  Stmt k1 = bind(bx1, bind(tx1, store(B, load(Tm, i1) + load(A, i1), i1)));
  return make_func("twok", {A, Tm, B}, BlockNode::make({k0, k1}));
}

PrimFunc guarded_matmul() {
  const int T = static_cast<int>(kTile), n = static_cast<int>(kGM);
  const int tiles = (n + T - 1) / T;
  DataType f = DataType::Float(32);
  auto A = make_param("A", f, {kGM, kGM});
  auto B = make_param("B", f, {kGM, kGM});
  auto C = make_param("C", f, {kGM, kGM});
  IterVar by = thread_axis("blockIdx.y", tiles), bx = thread_axis("blockIdx.x", tiles);
  IterVar ty = thread_axis("threadIdx.y", kTile), tx = thread_axis("threadIdx.x", kTile);
  Var ash = Var::buffer("A.shared", f), bsh = Var::buffer("B.shared", f),
      cl = Var::buffer("C.local", f);
  Var ko("k.outer"), ki("k.inner");
  Expr row = Expr(by) * T + Expr(ty), col = Expr(bx) * T + Expr(tx);
  Expr ka = Expr(ko) * T + Expr(tx), kb = Expr(ko) * T + Expr(ty);
  Stmt load_a = IfThenElseNode::make(
      likely(row < n && ka < n),
      StoreNode::make(ash, LoadNode::make(f, A.var(), row * n + ka), Expr(ty) * T + Expr(tx)));
  Stmt load_b = StoreNode::make(
      bsh,
      if_then_else(kb < n && col < n, LoadNode::make(f, B.var(), kb * n + col), make_const(f, 0.0)),
      Expr(ty) * T + Expr(tx));
  Expr acc = LoadNode::make(f, cl, 0);
  Stmt compute = IfThenElseNode::make(
      likely(Expr(ko) * T + Expr(ki) < n),
      StoreNode::make(cl,
                      acc + LoadNode::make(f, ash, Expr(ty) * T + Expr(ki)) *
                                LoadNode::make(f, bsh, Expr(ki) * T + Expr(tx)),
                      0));
  Stmt kloop = ForNode::make(
      ko, 0, tiles, ForKind::Serial,
      BlockNode::make({load_a, load_b, ForNode::make(ki, 0, T, ForKind::Serial, compute)}));
  Stmt body = BlockNode::make(
      {StoreNode::make(cl, make_const(f, 0.0), 0), kloop,
       IfThenElseNode::make(likely(row < n && col < n), store(C, acc, row * n + col))});
  body = AllocateNode::make(cl, f, {1}, StorageScope::Local, Expr(), body);
  body = AllocateNode::make(bsh, f, {T * T}, StorageScope::Shared, Expr(), body);
  body = AllocateNode::make(ash, f, {T * T}, StorageScope::Shared, Expr(), body);
  return make_func("gmatmul", {A, B, C}, bind(by, bind(bx, bind(ty, bind(tx, body)))));
}

PrimFunc half2_square() {
  DataType h = DataType::Float(16), h2 = DataType::Float(16, 2);
  auto A = make_param("A", h, {kHalf2N});
  auto B = make_param("B", h, {kHalf2N});
  auto C = make_param("C", h, {kHalf2N});
  IterVar tx = thread_axis("threadIdx.x", kHalf2N / 2);
  Expr ramp = RampNode::make(Expr(tx) * 2, 1, 2);
  Expr a = LoadNode::make(h2, A.var(), ramp);
  Stmt s =
      BlockNode::make({StoreNode::make(B.var(), a * a, ramp), StoreNode::make(C.var(), a, ramp)});
  return make_func("half2", {A, B, C}, bind(tx, s));
}

PrimFunc shared_float4_reverse() {
  DataType f = DataType::Float(32);
  auto A = make_param("A", f, {256});
  auto B = make_param("B", f, {256});
  IterVar tx = thread_axis("threadIdx.x", 64);
  Var sh = Var::buffer("S.shared", f);
  Var j("j");
  Expr ramp = RampNode::make(Expr(tx) * 4, 1, 4);
  Stmt fill = StoreNode::make(sh, LoadNode::make(DataType::Float(32, 4), A.var(), ramp), ramp);
  Expr i = Expr(j) * 64 + Expr(tx);
  Stmt rev = ForNode::make(j, 0, 4, ForKind::Serial, store(B, LoadNode::make(f, sh, 255 - i), i));
  Stmt body =
      AllocateNode::make(sh, f, {256}, StorageScope::Shared, Expr(), BlockNode::make({fill, rev}));
  return make_func("rev4", {A, B}, bind(tx, body));
}

PrimFunc bf16_elementwise() {
  DataType bf = DataType::BFloat(16), f = DataType::Float(32);
  auto A = make_param("A", bf, {kBf16N});
  auto B = make_param("B", bf, {kBf16N});
  auto I = make_param("I", DataType::Int(32), {kBf16N});
  auto F = make_param("F", DataType::Float(64), {kBf16N});
  auto C = make_param("C", bf, {kBf16N});
  auto D = make_param("D", f, {kBf16N});
  auto E = make_param("E", bf, {kBf16N});
  auto G = make_param("G", bf, {kBf16N});
  IterVar tx = thread_axis("threadIdx.x", 128);
  Var j("j");
  Expr i = Expr(j) * 128 + Expr(tx);
  Expr a = load(A, i), b = load(B, i);
  const double inf = std::numeric_limits<double>::infinity();
  Stmt c = store(C, max(a * b + make_const(bf, 1.0), make_const(bf, 0.0)), i);
  Stmt d = store(D, cast(f, max(a, make_const(bf, -inf))) + cast(f, a), i);
  Stmt e = store(E, select(a < b, cast(bf, load(I, i)), cast(bf, load(F, i))), i);
  Stmt g = store(G, select(isnan(a), make_const(bf, 3.0), min(a, make_const(bf, inf))), i);
  Stmt loop = ForNode::make(j, 0, 4, ForKind::Serial, BlockNode::make({c, d, e, g}));
  return make_func("bf16_ew", {A, B, I, F, C, D, E, G}, bind(tx, loop));
}

PrimFunc bf162_square() {
  DataType bf = DataType::BFloat(16), bf2 = DataType::BFloat(16, 2);
  auto A = make_param("A", bf, {kBf162N});
  auto B = make_param("B", bf, {kBf162N});
  auto C = make_param("C", bf, {kBf162N});
  IterVar tx = thread_axis("threadIdx.x", kBf162N / 2);
  Expr ramp = RampNode::make(Expr(tx) * 2, 1, 2);
  Expr a = LoadNode::make(bf2, A.var(), ramp);
  Stmt s =
      BlockNode::make({StoreNode::make(B.var(), a * a, ramp), StoreNode::make(C.var(), a, ramp)});
  return make_func("bf162", {A, B, C}, bind(tx, s));
}

std::vector<PrimFunc> all_test_functions() {
  return {vector_add(),       tiled_matmul(), float4_scale(),
          half_elementwise(), max_pairs(),    two_kernels(),
          guarded_matmul(),   half2_square(), shared_float4_reverse(),
          bf16_elementwise(), bf162_square()};
}

}  // namespace minitvm::testing
