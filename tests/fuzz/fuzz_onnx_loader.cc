// libFuzzer target: the ONNX loader (frontend::onnx) on arbitrary model bytes. Every input must
// either be rejected with a CompileError naming the problem or load; a model that loads and has
// small static input shapes is then run on the reference executor (pooling nodes planned with
// plan_onnx_pool, tensor ops compiled for llvm), which again may only reject with a CompileError.
// The same bytes are also read as a TensorProto (load_tensor). Anything else — a crash, a
// sanitizer report, an InternalError or a raw std:: exception — is a finding.
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <string>
#include <vector>

#include "fuzz/fuzz_util.h"
#include "minitvm/frontend/onnx_loader.h"

using namespace minitvm;
using namespace minitvm::frontend;

namespace {

/** The loader reads files: one in-memory file, rewritten for each input. */
std::string write_input(const uint8_t* data, size_t size) {
  static int fd = [] {
    int f = memfd_create("minitvm-fuzz-onnx", 0);
    if (f < 0) fuzz::finding("memfd_create failed");
    return f;
  }();
  if (ftruncate(fd, 0) != 0) fuzz::finding("ftruncate failed");
  size_t off = 0;
  while (off < size) {
    ssize_t n = pwrite(fd, data + off, size - off, static_cast<off_t>(off));
    if (n <= 0) fuzz::finding("pwrite failed");
    off += static_cast<size_t>(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

/** Inputs for the model when every shape is static and small; false otherwise. */
bool make_inputs(const onnx::Model& m, std::vector<HostArray>* out) {
  for (const auto& v : m.inputs) {
    int64_t numel = 1;
    for (int64_t d : v.shape) {
      if (d < 1 || d > 64) return false;
      numel *= d;
      if (numel > 4096) return false;
    }
    if (v.shape.empty() || v.dtype.bits() == 16) return false;
    std::vector<double> vals(static_cast<size_t>(numel));
    const double shift = v.dtype.is_uint() ? 0.0 : 11.0;  // values the dtype can hold
    for (int64_t i = 0; i < numel; ++i) vals[i] = static_cast<double>((i * 7 + 3) % 23) - shift;
    out->push_back(HostArray::from_doubles(v.dtype, v.shape, vals));
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::quiet();
  if (!onnx::available()) return 0;
  const std::string path = write_input(data, size);
  onnx::Model model;
  if (fuzz::accepts("load_model", [&] { model = onnx::load_model(path); })) {
    std::vector<HostArray> inputs;
    if (model.nodes.size() <= 8 && make_inputs(model, &inputs)) {
      ReferencePoolExecutor exec;
      std::vector<HostArray> outs;
      if (fuzz::accepts("run_model", [&] { outs = onnx::run_model(model, inputs, exec); }))
        if (outs.size() != model.outputs.size())
          fuzz::finding("run_model returned the wrong number of outputs");
    }
  }
  HostArray t;
  if (fuzz::accepts("load_tensor", [&] { t = onnx::load_tensor(path); })) {
    // The element count of the shape (0 if any dim is 0, even when the others' product would
    // overflow; an overflow otherwise means load_tensor accepted an impossible shape).
    int64_t numel = 1;
    bool zero = false, overflow = false;
    for (int64_t d : t.shape()) zero = zero || d == 0;
    for (int64_t d : t.shape())
      overflow = overflow || (!zero && __builtin_mul_overflow(numel, d, &numel));
    if (zero) numel = 0;
    if (overflow)
      fuzz::finding("load_tensor: accepted a shape whose element count overflows");
    else if (numel != t.numel())
      fuzz::finding("load_tensor: numel() disagrees with the shape");
    if (t.numel() > 0 && t.dtype().bits() != 16) (void)t.get(t.numel() - 1);
  }
  return 0;
}
