/** \file
 * The graph executor: runs a CompiledGraph (TVM v0.6 graph JSON + one Module + params) on a device,
 * after TVM v0.6's graph_runtime (src/runtime/graph/graph_runtime.cc). Runtime only: a built
 * network runs without the compiler.
 *
 *   runtime::GraphExecutor m(compiled, Device::cpu());   // or Device::cuda(0) for "cuda" modules
 *   m.set_input("data", x);                              // copies; by name or index
 *   m.run();
 *   NDArray y = m.get_output(0);                         // a view of the output entry
 *
 * Graph JSON: the reader follows v0.6's rules — the five keys `nodes`, `arg_nodes`, `heads`,
 * `attrs`, `node_row_ptr` are required, reading stops at a `metadata` key, another key is an error;
 * nodes have `op`, `name`, `inputs`, optional `attr` or `attrs` (all values strings) and
 * `control_deps`; node entries are [node, index] or [node, index, version]; graph attrs `shape`
 * (list_shape), `dltype` (list_str), `storage_id` (list_int), optional `device_index` (list_int,
 * all equal: one device), other `list_int`/`size_t` attrs are skipped. Malformed graphs throw
 * RuntimeError naming the key, the node (index and name) or the entry.
 *
 * Setup (constructor): one pool per storage_id of max over its entries of ceil(bits*lanes/8) *
 * prod(shape) bytes, every entry a zero-offset view of its pool (TVM's CreateView); params
 * copied into the entries of the null nodes of the same name; each `tvm_op` node becomes a closure
 * calling `lib` function `func_name` on its input entries then its output entries (flatten_data "1"
 * passes 1-D views), prepared once, so run() checks nothing and, for "llvm"
 * and "cuda" modules, allocates nothing. `__nop` nodes do nothing, `__copy` copies its input entry
 * into its output entry. run() does not synchronise a CUDA device (get_output copies do).
 * A graph without kernels (its heads are inputs or params, e.g. relay::build of an identity)
 * may come with an empty Module; a kernel node with an empty Module is a RuntimeError at setup.
 *
 * Devices: "llvm" and "cuda-emulator" ("cuda -emulate") modules run on Device::cpu() (the emulator
 * takes host arrays), "cuda" modules on a Device::cuda(i); a mismatch is a RuntimeError at setup.
 * Inputs (TVM's numbering): every null node in arg_nodes order, parameters included;
 * input_names()/get_num_inputs() list them all, is_param(i) says which came with the params.
 */
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "minitvm/runtime/graph.h"
#include "minitvm/runtime/module.h"
#include "minitvm/runtime/ndarray.h"

struct DLManagedTensor;

namespace minitvm::runtime {

class ProfileReport;

/** TVM v0.6 params bytes (docs/RUNTIME.md) of `params`, in name order; arrays may be on any device.
 */
std::string save_param_dict(const std::map<std::string, NDArray>& params);
/** Parse TVM params bytes into CPU arrays; RuntimeError naming the offset/array on malformed bytes.
 */
std::map<std::string, NDArray> load_param_dict(const std::string& bytes);

class GraphExecutor {
 public:
  /** Parse, plan storage, copy `g.params` in and prepare every node; see the file comment. */
  GraphExecutor(const CompiledGraph& g, Device dev);
  GraphExecutor(const std::string& graph_json, Module lib, Device dev,
                const std::map<std::string, NDArray>& params = {});
  ~GraphExecutor();
  GraphExecutor(const GraphExecutor&) = delete;
  GraphExecutor& operator=(const GraphExecutor&) = delete;

  /** Copy `value` into input `name` / `index`; RuntimeError naming the input, expected and got. */
  void set_input(const std::string& name, const NDArray& value);
  void set_input(int index, const NDArray& value);
  /** DLPack forms: the tensor is imported (its deleter is called) and copied in. */
  void set_input(const std::string& name, DLManagedTensor* value);
  void set_input(int index, DLManagedTensor* value);
  /**
   * TVM's set_input_zero_copy: the kernels that read input `name` / `index` use `value`'s memory
   * from now on (no copy; keep it alive and unchanged while running). Same shape and dtype, on the
   * executor's device, contiguous. get_input() still returns the planned entry.
   */
  void set_input_zero_copy(const std::string& name, const NDArray& value);
  void set_input_zero_copy(int index, const NDArray& value);
  /** Index of input `name`, -1 if there is none. */
  int get_input_index(const std::string& name) const;
  /** The entry of input `index` (a view, on the executor's device). */
  NDArray get_input(int index) const;
  NDArray get_input(const std::string& name) const;

  /** Run every node once, in graph order. */
  void run();

  /** Output `index` (a view of its entry: the next run() overwrites it). */
  NDArray get_output(int index) const;
  /** Copy output `index` into `out` (same shape and dtype, any device). */
  void get_output(int index, NDArray& out) const;

  int get_num_inputs() const;
  int get_num_outputs() const;
  const std::vector<std::string>& input_names() const;
  /** True if input `index` was set from the params at construction (or load_params). */
  bool is_param(int index) const;
  /** "node" for a node's single output, "node:i" for output i of a multi-output node. */
  std::vector<std::string> output_names() const;
  std::vector<int64_t> input_shape(int index) const;
  DataType input_dtype(int index) const;
  std::vector<int64_t> output_shape(int index) const;
  DataType output_dtype(int index) const;

  /** Copy every array of TVM params bytes into the input of the same name (unknown name: error). */
  void load_params(const std::string& bytes);
  /** The current values of the inputs that are params, as TVM params bytes. */
  std::string save_params() const;

  /**
   * Time every op node: `warmup` full runs, then `runs` runs timing each node around its call
   * (and a device synchronise for CUDA). See ProfileReport.
   */
  ProfileReport profile(int runs = 10, int warmup = 1);

  Device device() const;
  /** Bytes of the storage pools (the planned activation memory, params included). */
  int64_t storage_bytes() const;
  /** Number of nodes (all kinds) and of op nodes that run. */
  int num_nodes() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

/** One timed call of an op node (profile()). */
struct ProfileCall {
  int node = 0;  ///< node index in the graph
  std::string node_name;
  std::string func_name;  ///< the kernel
  std::string ops;        ///< node attr "ops" if present, else ""
  std::string op_type;    ///< grouping key of the op-type table (see ProfileReport)
  std::string
      arg_shapes;  ///< "float32[1, 3, 224, 224], float32[64, 3, 7, 7], ..." (inputs then outputs)
  int num_inputs = 0, num_outputs = 0;
  std::vector<std::vector<int64_t>> output_shapes;
  std::string device;   ///< "cpu0", "cuda0"
  int run = 0;          ///< which timed run
  double start_us = 0;  ///< since the start of the first timed run
  double duration_us = 0;
};

/**
 * The result of GraphExecutor::profile(): every call, and tables over them.
 *
 * - table(): one row per kernel (func_name + argument shapes): Name, Ops, Calls, Total (us), Mean
 *   (us), Min (us), Max (us), Percent, Argument Shapes; sorted by total time (or graph order),
 *   then a Total row. Percent = 100 * total / the sum over all op calls.
 * - op_table(): PyTorch's legacy key_averages().table() look: Name (the op type),
 *   Self CPU total %, Self CPU total, CPU time avg, Number of Calls; dash lines around the header
 *   and at the end, then "Self CPU time total: X". op_type = the node attr "op_type" if present,
 *   else the first op of the "ops" attr (split at ',' or '+'), else the func_name without a leading
 *   "fused_" and a trailing "_<digits>" uniquifier.
 * - csv(), json(): TVM's AsCSV()/AsJSON() with one row per call.
 * - chrome_trace(): Trace Event Format JSON, one complete ("X") event per call.
 * - debug_table(): TVM v0.6's debug runtime table: Node Name, Ops (func_name),
 *   Time(us), Time(%), Shape, Inputs, Outputs; one row per node output with the node's mean time
 *   over the runs, sorted by time, then Total_time; columns left-aligned, longest cell + 2.
 */
class ProfileReport {
 public:
  std::vector<ProfileCall> calls;
  int runs = 0;
  /** Wall time of the timed runs, instrumentation included (µs). */
  double wall_us = 0;
  /** Sum of all call durations (µs). */
  double total_us() const;

  std::string table(bool sort_by_time = true) const;
  std::string op_table() const;
  std::string csv() const;
  std::string json() const;
  std::string chrome_trace() const;
  std::string debug_table() const;
  /** Write chrome_trace() to `path` (RuntimeError if it cannot be written). */
  void save_chrome_trace(const std::string& path) const;
};

}  // namespace minitvm::runtime
