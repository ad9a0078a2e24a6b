// libFuzzer target: schedules built from fuzzed primitive sequences on a small two-stage compute
//   B[i, j] = A[i, j] * 2 + 1          (16 x 13, elementwise)
//   C[i]    = sum(B[i, k], k)          (16, reduction over 13)
// Each step applies one of split / fuse / reorder / tile / vectorize / unroll / parallel /
// compute_at / compute_inline / cache_read / cache_write to a fuzzed stage and axis; the schedule
// is then lowered, built for llvm and run. Every sequence must either raise minitvm's user error
// (CompileError, at the primitive or at lower/build) or compute C exactly as a naive loop does.
// A crash, a sanitizer report, an InternalError, a raw std:: exception or a wrong value is a
// finding.
#include <cmath>
#include <sstream>
#include <vector>

#include <minitvm/minitvm.h>

#include "fuzz/fuzz_util.h"

using namespace minitvm;

namespace {

constexpr int kN = 16, kM = 13;

struct Case {
  te::Tensor A, B, C;
  Case() {
    A = te::placeholder({kN, kM}, DataType::Float(32), "A");
    B = te::compute(
        {kN, kM}, [&](Var i, Var j) { return A(i, j) * 2.0f + 1.0f; }, "B");
    te::IterVar k = te::reduce_axis({0, kM}, "k");
    C = te::compute(
        {kN}, [&](Var i) { return te::sum(B(i, k), {k}); }, "C");
  }
};

const std::vector<float>& input() {
  static const std::vector<float> a = [] {
    std::vector<float> v(kN * kM);
    for (int i = 0; i < kN * kM; ++i) v[i] = static_cast<float>((i * 29 + 7) % 17) * 0.25f - 2.0f;
    return v;
  }();
  return a;
}

std::vector<float> reference() {
  std::vector<float> c(kN, 0.0f);
  const auto& a = input();
  for (int i = 0; i < kN; ++i) {
    double acc = 0;
    for (int k = 0; k < kM; ++k) acc += a[i * kM + k] * 2.0 + 1.0;
    c[i] = static_cast<float>(acc);
  }
  return c;
}

// Handles are always defined: an undefined IterVar is not something a user can pass by mistake
// through the Python-like API this mirrors, so it is not fuzzed.

/** A factor: mostly 1..17, sometimes 0 or negative (must be CompileErrors). */
int factor(fuzz::Bytes& b) {
  uint8_t v = b.u8();
  if (v % 16 == 0) return -static_cast<int>(b.range(0, 3));
  return 1 + v % 17;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet();
  if (size > 64) return 0;  // at most ~20 primitives
  fuzz::Bytes b(data, size);
  Case c;
  te::Schedule s = te::create_schedule({c.C.op()});
  std::vector<te::Tensor> tensors = {c.B, c.C, c.A};
  std::ostringstream log;  // the applied sequence, printed with a finding
  auto pick_tensor = [&] { return tensors[b.u8() % tensors.size()]; };
  auto pick_axis = [&](te::Stage st) -> te::IterVar {
    const auto& leaves = st.leaf_iter_vars();
    if (leaves.empty()) return te::IterVar();
    return leaves[b.u8() % leaves.size()];
  };
  auto name = [](const te::IterVar& iv) {
    return iv.defined() ? iv->var->name_hint : std::string("<none>");
  };
  auto fail = [&](const std::string& what) { fuzz::finding(what + "\nsequence:\n" + log.str()); };

  while (!b.empty()) {
    const int op = b.u8() % 11;
    te::Tensor t = pick_tensor();
    te::Stage st = s[t];
    bool ok = true;
    try {
      switch (op) {
        case 0: {
          te::IterVar x = pick_axis(st);
          int f = factor(b);
          if (!x.defined()) break;
          log << "s[" << t.op().name() << "].split(" << name(x) << ", " << f << ")\n";
          st.split(x, f);
          break;
        }
        case 1: {
          const auto& leaves = st.leaf_iter_vars();
          size_t i = leaves.empty() ? 0 : b.u8() % leaves.size();
          size_t j = b.u8() % 4 == 0 ? (leaves.empty() ? 0 : b.u8() % leaves.size()) : i + 1;
          te::IterVar x = i < leaves.size() ? leaves[i] : te::IterVar();
          te::IterVar y = j < leaves.size() ? leaves[j] : te::IterVar();
          if (!x.defined() || !y.defined()) break;
          log << "s[" << t.op().name() << "].fuse(" << name(x) << ", " << name(y) << ")\n";
          st.fuse(x, y);
          break;
        }
        case 2: {
          std::vector<te::IterVar> order = st.leaf_iter_vars();
          for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[b.u8() % i]);
          if (b.u8() % 4 == 0 && !order.empty()) order.pop_back();
          log << "s[" << t.op().name() << "].reorder(";
          for (auto& iv : order) log << name(iv) << " ";
          log << ")\n";
          st.reorder(order);
          break;
        }
        case 3: {
          te::IterVar x = pick_axis(st), y = pick_axis(st);
          int fx = factor(b), fy = factor(b);
          if (!x.defined() || !y.defined()) break;
          log << "s[" << t.op().name() << "].tile(" << name(x) << ", " << name(y) << ", " << fx
              << ", " << fy << ")\n";
          st.tile(x, y, fx, fy);
          break;
        }
        case 4: {
          te::IterVar x = pick_axis(st);
          if (!x.defined()) break;
          log << "s[" << t.op().name() << "].vectorize(" << name(x) << ")\n";
          st.vectorize(x);
          break;
        }
        case 5: {
          te::IterVar x = pick_axis(st);
          if (!x.defined()) break;
          log << "s[" << t.op().name() << "].unroll(" << name(x) << ")\n";
          st.unroll(x);
          break;
        }
        case 6: {
          te::IterVar x = pick_axis(st);
          if (!x.defined()) break;
          log << "s[" << t.op().name() << "].parallel(" << name(x) << ")\n";
          st.parallel(x);
          break;
        }
        case 7: {
          te::Tensor p = pick_tensor();
          te::IterVar x = pick_axis(s[p]);
          if (!x.defined()) break;
          log << "s[" << t.op().name() << "].compute_at(s[" << p.op().name() << "], " << name(x)
              << ")\n";
          st.compute_at(s[p], x);
          break;
        }
        case 8:
          log << "s[" << t.op().name() << "].compute_inline()\n";
          st.compute_inline();
          break;
        case 9: {
          te::Tensor reader = pick_tensor();
          const char* scope = b.flag() ? "local" : "global";
          log << "s.cache_read(" << t.op().name() << ", " << scope << ", {" << reader.op().name()
              << "})\n";
          tensors.push_back(s.cache_read(t, scope, {reader.op()}));
          break;
        }
        case 10: {
          const char* scope = b.flag() ? "local" : "global";
          log << "s.cache_write(" << t.op().name() << ", " << scope << ")\n";
          tensors.push_back(s.cache_write(t, scope));
          break;
        }
      }
    } catch (const CompileError&) {
      ok = false;
    } catch (const InternalError& e) {
      fail(std::string("InternalError at a primitive: ") + e.what());
    } catch (const std::exception& e) {
      fail(std::string("exception at a primitive: ") + typeid(e).name() + ": " + e.what());
    }
    if (!ok) log << "  -> CompileError\n";
  }

  runtime::Module mod;
  try {
    mod = build(s, {c.A, c.C}, "llvm", "f");
  } catch (const CompileError&) {
    return 0;
  } catch (const InternalError& e) {
    fail(std::string("InternalError at lower/build: ") + e.what());
  } catch (const std::exception& e) {
    fail(std::string("exception at lower/build: ") + typeid(e).name() + ": " + e.what());
  }
  auto a = runtime::NDArray::from_vector(input(), {kN, kM});
  auto out = runtime::NDArray::from_vector(std::vector<float>(kN, -12345.0f), {kN});
  try {
    mod.get_function("f")(a, out);
  } catch (const std::exception& e) {
    fail(std::string("exception when running: ") + typeid(e).name() + ": " + e.what());
  }
  const std::vector<float> got = out.to_vector<float>(), want = reference();
  for (int i = 0; i < kN; ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-4f * std::max(1.0f, std::fabs(want[i]))))
      fail("wrong value: C[" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", expected " +
           std::to_string(want[i]));
  return 0;
}
