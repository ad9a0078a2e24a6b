// A small hand-written network for the graph executor tests: TVM v0.6 graph JSON, kernels built
// with build(), params, and a naive-loop reference of the whole network.
//
//   data[1,2,6,6] --conv3x3 pad1 (p0[4,2,3,3]) + bias (p1[4]) + relu--> [1,4,6,6]   (sid 3)
//     --reshape (__nop, same storage)--> [1,144]                                    (sid 3)
//     --add p2[1,144]--> [1,144]                                                     (sid 5)
//     --relu--> [1,144]            (sid 3 again: the conv output is dead by then)    output 0
//     --__copy--> [1,144]                                                            output 1
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "minitvm/codegen/build.h"
#include "minitvm/runtime/graph.h"
#include "minitvm/te/schedule.h"
#include "minitvm/transform/lower.h"

namespace minitvm::graph_test {

using runtime::NDArray;
inline const DataType f32 = DataType::Float(32);

inline std::vector<float> rnd(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(g);
  return v;
}

inline const char* kGraphJson = R"({
  "nodes": [
    {"op": "null", "name": "data", "inputs": []},
    {"op": "null", "name": "p0", "inputs": []},
    {"op": "null", "name": "p1", "inputs": []},
    {"op": "tvm_op", "name": "fused_nn_conv2d_add_nn_relu", "attrs": {"func_name": "fused_nn_conv2d_add_nn_relu",
     "flatten_data": "0", "num_inputs": "3", "num_outputs": "1", "ops": "nn.conv2d,add,nn.relu"},
     "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
    {"op": "tvm_op", "name": "reshape_nop", "attrs": {"func_name": "__nop", "flatten_data": "0",
     "num_inputs": "1", "num_outputs": "1"}, "inputs": [[3, 0, 0]]},
    {"op": "null", "name": "p2", "inputs": []},
    {"op": "tvm_op", "name": "fused_add", "attr": {"func_name": "fused_add", "flatten_data": "0",
     "num_inputs": "2", "num_outputs": "1"}, "inputs": [[4, 0], [5, 0]]},
    {"op": "tvm_op", "name": "fused_nn_relu", "attrs": {"func_name": "fused_nn_relu", "flatten_data": "1",
     "num_inputs": "1", "num_outputs": "1"}, "inputs": [[6, 0, 0]]},
    {"op": "tvm_op", "name": "copy", "attrs": {"func_name": "__copy", "num_inputs": "1", "num_outputs": "1"},
     "inputs": [[7, 0, 0]]}
  ],
  "arg_nodes": [0, 1, 2, 5],
  "heads": [[7, 0, 0], [8, 0, 0]],
  "attrs": {
    "dltype": ["list_str", ["float32", "float32", "float32", "float32", "float32", "float32", "float32",
                            "float32", "float32"]],
    "storage_id": ["list_int", [0, 1, 2, 3, 3, 4, 5, 3, 6]],
    "shape": ["list_shape", [[1, 2, 6, 6], [4, 2, 3, 3], [4], [1, 4, 6, 6], [1, 144], [1, 144], [1, 144],
                             [1, 144], [1, 144]]]
  },
  "node_row_ptr": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
})";

/** Bind the fused data axes of `t` to blocks of 64 threads (GPU targets). */
inline te::IterVar bind_all(te::Schedule& s, const te::Tensor& t) {
  auto axes = t.op().axis();
  te::IterVar f =
      axes.size() == 1 ? axes[0] : s[t].fuse(std::vector<te::IterVar>(axes.begin(), axes.end()));
  auto [bx, tx] = s[t].split(f, 64);
  s[t].bind(bx, te::thread_axis("blockIdx.x"));
  s[t].bind(tx, te::thread_axis("threadIdx.x"));
  return tx;
}

/** The three kernels of kGraphJson lowered for `target` ("llvm", "cuda", "cuda -emulate"). */
inline std::vector<ir::PrimFunc> kernel_funcs(const std::string& target) {
  const bool gpu = target != "llvm";
  std::vector<ir::PrimFunc> funcs;
  {
    te::Tensor X = te::placeholder({1, 2, 6, 6}, f32, "X");
    te::Tensor W = te::placeholder({4, 2, 3, 3}, f32, "W");
    te::Tensor B = te::placeholder({4}, f32, "B");
    te::Tensor P = te::compute(
        {1, 2, 8, 8},
        [&](Var n, Var c, Var h, Var w) {
          return te::if_then_else(h >= 1 && h < 7 && w >= 1 && w < 7, X(n, c, h - 1, w - 1),
                                  Expr(0.0f));
        },
        "pad");
    te::IterVar rc = te::reduce_axis({0, 2}, "rc"), ry = te::reduce_axis({0, 3}, "ry"),
                rx = te::reduce_axis({0, 3}, "rx");
    te::Tensor C = te::compute(
        {1, 4, 6, 6},
        [&](Var n, Var f, Var y, Var x) {
          return te::sum(P(n, rc, y + ry, x + rx) * W(f, rc, ry, rx), {rc, ry, rx});
        },
        "conv");
    te::Tensor O = te::compute(
        {1, 4, 6, 6},
        [&](Var n, Var f, Var y, Var x) { return te::max(C(n, f, y, x) + B(f), 0.0f); }, "out");
    te::Schedule s = te::create_schedule({O.op()});
    s[P].compute_inline();
    if (!gpu) {
      auto ax = O.op().axis();
      s[O].parallel(s[O].fuse(ax[0], ax[1]));  // calls minitvm_parallel_for
    } else {
      te::IterVar tx = bind_all(s, O);
      s[C].compute_at(s[O], tx);
      s[C].set_scope("local");
    }
    funcs.push_back(lower(s, {X, W, B, O}, "fused_nn_conv2d_add_nn_relu"));
  }
  {
    te::Tensor A = te::placeholder({1, 144}, f32, "A");
    te::Tensor Bt = te::placeholder({1, 144}, f32, "B");
    te::Tensor O = te::compute(
        {1, 144}, [&](Var i, Var j) { return A(i, j) + Bt(i, j); }, "out");
    te::Schedule s = te::create_schedule({O.op()});
    if (gpu) bind_all(s, O);
    funcs.push_back(lower(s, {A, Bt, O}, "fused_add"));
  }
  {
    // flatten_data "1": the kernel takes 1-D arrays.
    te::Tensor A = te::placeholder({144}, f32, "A");
    te::Tensor O = te::compute(
        {144}, [&](Var i) { return te::max(A(i), 0.0f); }, "out");
    te::Schedule s = te::create_schedule({O.op()});
    if (gpu) bind_all(s, O);
    funcs.push_back(lower(s, {A, O}, "fused_nn_relu"));
  }
  return funcs;
}

/** The three kernels in one module. */
inline runtime::Module build_kernels(const std::string& target) {
  return build(kernel_funcs(target), target);
}

struct Params {
  std::vector<float> w = rnd(4 * 2 * 3 * 3, 11), b = rnd(4, 12), p2 = rnd(144, 13);
  std::map<std::string, NDArray> arrays() const {
    return {{"p0", NDArray::from_vector(w, {4, 2, 3, 3})},
            {"p1", NDArray::from_vector(b, {4})},
            {"p2", NDArray::from_vector(p2, {1, 144})}};
  }
};

/** The network in plain loops. */
inline std::vector<float> reference(const std::vector<float>& x, const Params& p) {
  std::vector<float> conv(144);
  for (int f = 0; f < 4; ++f)
    for (int y = 0; y < 6; ++y)
      for (int xx = 0; xx < 6; ++xx) {
        float acc = 0;
        for (int c = 0; c < 2; ++c)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = y + ky - 1, ix = xx + kx - 1;
              if (iy < 0 || iy >= 6 || ix < 0 || ix >= 6) continue;
              acc += x[(c * 6 + iy) * 6 + ix] * p.w[((f * 2 + c) * 3 + ky) * 3 + kx];
            }
        conv[(f * 6 + y) * 6 + xx] = std::max(acc + p.b[f], 0.0f);
      }
  std::vector<float> out(144);
  for (int i = 0; i < 144; ++i) out[i] = std::max(conv[i] + p.p2[i], 0.0f);
  return out;
}

inline runtime::CompiledGraph compiled(const std::string& target, const Params& p) {
  runtime::CompiledGraph g;
  g.graph_json = kGraphJson;
  g.lib = build_kernels(target);
  g.params = p.arrays();
  g.target = target;
  return g;
}

}  // namespace minitvm::graph_test
