// Space definitions of TVM's CUDA conv2d / depthwise / dense templates as functions of the
// workload, registered with autotune (autotune::register_template_space) under their task names so
// that the record loader can check TVM's logs against them.
#include "minitvm/topi/template_spaces.h"

#include "minitvm/autotune/record.h"
#include "minitvm/support/error.h"

namespace minitvm::topi {

using autotune::ConfigSpace;
using autotune::Json;
using autotune::SpaceDefiner;
using autotune::SplitEntity;
using autotune::SplitOptions;
using autotune::Target;

namespace {
constexpr int64_t kMaxExtent = int64_t{1} << 31;

bool get_int(const Json& v, int64_t& out) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) return false;
  out = v.get<int64_t>();
  return true;
}

// A tensor in a workload: 0.1 flat [d0, ..., "dtype"], 0.2 ["TENSOR", [d0, ...], "dtype"].
bool get_shape(const Json& v, std::vector<int64_t>& shape) {
  shape.clear();
  if (!v.is_array()) return false;
  const Json* dims = &v;
  size_t n = v.size();
  if (n == 3 && v[0].is_string() && v[0].get<std::string>() == "TENSOR") {
    if (!v[1].is_array()) return false;
    dims = &v[1];
    n = dims->size();
  } else {
    if (n == 0 || !v[n - 1].is_string()) return false;
    --n;  // trailing dtype
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t d;
    if (!get_int((*dims)[i], d) || d < 1 || d > kMaxExtent) return false;
    shape.push_back(d);
  }
  return true;
}

// int or list of ints -> list
bool get_ints(const Json& v, std::vector<int64_t>& out) {
  out.clear();
  int64_t x;
  if (get_int(v, x)) {
    out.push_back(x);
    return true;
  }
  if (!v.is_array()) return false;
  for (const auto& e : v) {
    if (!get_int(e, x)) return false;
    out.push_back(x);
  }
  return true;
}

bool is_int_or_list(const Json& v) {
  return v.is_number_integer() || (v.is_array() && (v.empty() || v[0].is_number_integer()));
}

SplitOptions factors(int k) {
  SplitOptions o;
  o.num_outputs = k;
  return o;
}
}  // namespace

std::optional<ConvGeometry> conv_geometry(const Json& w) {
  if (!w.is_array() || w.size() < 6 || !w[0].is_string()) return std::nullopt;
  const std::string name = w[0].get<std::string>();
  const bool depthwise = name.rfind("depthwise_conv2d_nchw", 0) == 0;
  const bool grouped = name == "group_conv2d_nchw" || name == "group_conv2d_nchw.cuda";
  if (!(depthwise || grouped || name == "conv2d" || name == "conv2d_nchw.cuda" ||
        name == "conv2d_nchw_winograd.cuda"))
    return std::nullopt;
  std::vector<int64_t> data, kernel, strides, padding, dilation{1, 1};
  if (!get_shape(w[1], data) || !get_shape(w[2], kernel) || data.size() != 4 || kernel.size() != 4)
    return std::nullopt;
  if (!get_ints(w[3], strides) || !get_ints(w[4], padding)) return std::nullopt;
  if (w.size() >= 7 && is_int_or_list(w[5])) {
    if (!get_ints(w[5], dilation)) return std::nullopt;
  }
  int64_t groups = 1;
  if (grouped) {  // (..., dilation, groups, out_dtype)
    if (w.size() != 8 || !get_int(w[6], groups) || groups < 1 || groups > kMaxExtent)
      return std::nullopt;
    if (data[1] % groups != 0 || kernel[0] % groups != 0 || kernel[1] * groups != data[1])
      return std::nullopt;
  }
  if (name == "conv2d") {  // layout is the second-to-last element
    const Json& layout = w[w.size() - 2];
    if (!layout.is_string() || layout.get<std::string>() != "NCHW") return std::nullopt;
  }
  auto pair = [](std::vector<int64_t>& v) {
    if (v.size() == 1) v.push_back(v[0]);
    return v.size() == 2;
  };
  if (!pair(strides) || !pair(dilation)) return std::nullopt;
  ConvGeometry g;
  g.n = data[0];
  g.ci = data[1];
  g.h = data[2];
  g.w = data[3];
  g.kh = kernel[2];
  g.kw = kernel[3];
  g.co = depthwise ? data[1] * kernel[1] : kernel[0];
  g.groups = groups;
  g.stride_h = strides[0];
  g.stride_w = strides[1];
  g.dil_h = dilation[0];
  g.dil_w = dilation[1];
  if (padding.size() == 1) padding = {padding[0], padding[0]};
  if (padding.size() == 2) {
    // v0.6 get_pad_tuple: pad_h = 2 * padding[0]; top = (pad_h + 1) // 2, bottom = pad_h - top
    g.pad_top = g.pad_bottom = padding[0];
    g.pad_left = g.pad_right = padding[1];
  } else if (padding.size() == 4) {
    g.pad_top = padding[0];
    g.pad_left = padding[1];
    g.pad_bottom = padding[2];
    g.pad_right = padding[3];
  } else {
    return std::nullopt;
  }
  for (int64_t v : {g.stride_h, g.stride_w, g.dil_h, g.dil_w})
    if (v < 1 || v > kMaxExtent) return std::nullopt;
  for (int64_t v : {g.pad_top, g.pad_left, g.pad_bottom, g.pad_right})
    if (v < 0 || v > kMaxExtent) return std::nullopt;
  if (g.co < 1 || g.co > kMaxExtent) return std::nullopt;
  int64_t dkh = (g.kh - 1) * g.dil_h + 1, dkw = (g.kw - 1) * g.dil_w + 1;
  int64_t hh = g.h + g.pad_top + g.pad_bottom - dkh, ww = g.w + g.pad_left + g.pad_right - dkw;
  if (hh < 0 || ww < 0) return std::nullopt;
  g.oh = hh / g.stride_h + 1;
  g.ow = ww / g.stride_w + 1;
  return g;
}

std::optional<DenseGeometry> dense_geometry(const Json& w) {
  if (!w.is_array() || w.size() < 3 || !w[0].is_string()) return std::nullopt;
  const std::string name = w[0].get<std::string>();
  if (!(name == "dense" || name == "dense_small_batch.cuda" || name == "dense_large_batch.cuda"))
    return std::nullopt;
  std::vector<int64_t> data, weight;
  if (!get_shape(w[1], data) || !get_shape(w[2], weight) || data.size() != 2 || weight.size() != 2)
    return std::nullopt;
  return DenseGeometry{data[0], data[1], weight[0]};
}

std::vector<Json> unroll_explicit_candidates(const Target& target) {
  if (target.name == "nvptx" || target.name == "rocm") return {1};
  return {0, 1};
}

void define_conv2d_direct_space(SpaceDefiner& cfg, const ConvGeometry& g, const Target& target) {
  cfg.define_split("tile_f", g.co, factors(4));
  cfg.define_split("tile_y", g.oh, factors(4));
  cfg.define_split("tile_x", g.ow, factors(4));
  cfg.define_split("tile_rc", g.ci, factors(2));
  cfg.define_split("tile_ry", g.kh, factors(2));
  cfg.define_split("tile_rx", g.kw, factors(2));
  // TopHub cuda_v0.05+ swapped the names of these two entries; such records apply.
  cfg.accept_swapped("tile_ry", "tile_rx");
  cfg.define_knob("auto_unroll_max_step", {0, 512, 1500});
  cfg.define_knob("unroll_explicit", unroll_explicit_candidates(target));
}

int64_t winograd_tile_size(int64_t h) {
  return h % 8 == 0 ? 4 : 2;
}

void define_conv2d_winograd_space(SpaceDefiner& cfg, const ConvGeometry& g, const Target& target) {
  int64_t m = winograd_tile_size(g.h);
  int64_t alpha = m + g.kw - 1;
  int64_t nh = (g.oh + m - 1) / m, nw = (g.ow + m - 1) / m;
  SplitOptions b = factors(4);
  b.filter = [](const SplitEntity& e) {
    return e.size[1] == 1 && e.size[2] == 1 && e.size[3] == 1;
  };
  cfg.define_split("tile_b", alpha * alpha, b);
  cfg.define_split("tile_y", g.co, factors(4));
  cfg.define_split("tile_x", g.n * nh * nw, factors(4));
  cfg.define_split("tile_rc", g.ci, factors(2));
  cfg.define_knob("auto_unroll_max_step", {0, 128, 1500});
  cfg.define_knob("unroll_explicit", unroll_explicit_candidates(target));
}

void define_depthwise_space(SpaceDefiner& cfg, const ConvGeometry& g, const Target& target) {
  cfg.define_split("tile_f", g.co, factors(4));
  cfg.define_split("tile_y", g.oh, factors(4));
  cfg.define_split("tile_x", g.ow, factors(4));
  cfg.define_knob("auto_unroll_max_step", {0, 256, 1500});
  cfg.define_knob("unroll_explicit", unroll_explicit_candidates(target));
}

void define_group_conv2d_space(SpaceDefiner& cfg, const ConvGeometry& g, const Target& target) {
  MINITVM_USER_CHECK(g.groups >= 1 && g.ci % g.groups == 0 && g.co % g.groups == 0)
      << "group_conv2d_nchw.cuda: groups=" << g.groups << " must divide " << g.ci << " input and "
      << g.co << " output channels";
  cfg.define_split("tile_n", g.n, factors(4));
  cfg.define_split("tile_g", g.groups, factors(2));
  cfg.define_split("tile_f", g.co / g.groups, factors(4));
  cfg.define_split("tile_y", g.oh, factors(4));
  cfg.define_split("tile_x", g.ow, factors(4));
  cfg.define_split("tile_rc", g.ci / g.groups, factors(2));
  cfg.define_split("tile_ry", g.kh, factors(2));
  cfg.define_split("tile_rx", g.kw, factors(2));
  cfg.define_knob("auto_unroll_max_step", {0, 512, 1500});
  cfg.define_knob("unroll_explicit", unroll_explicit_candidates(target));
  cfg.define_knob("fuse_yx", {0, 1});
}

void define_dense_small_batch_space(SpaceDefiner& cfg, const DenseGeometry& g) {
  cfg.define_split("tile_k", g.in_dim, factors(2));
}

void define_dense_large_batch_space(SpaceDefiner& cfg, const DenseGeometry& g) {
  cfg.define_split("tile_x", g.batch, factors(4));
  cfg.define_split("tile_y", g.out_dim, factors(4));
  cfg.define_split("tile_k", g.in_dim, factors(3));
}

namespace {

// The space of a TVM CUDA template's record (see template_spaces.h), by task name and key.
std::optional<ConfigSpace> cuda_template_space(const std::string& task, const std::string& tkey,
                                               const Json& workload, const Target& target) {
  if (!(target.name == "cuda" || target.name == "nvptx" || target.name == "rocm"))
    return std::nullopt;
  ConfigSpace s;
  if ((task == "topi_nn_conv2d" && tkey == "direct") || task == "conv2d_nchw.cuda") {
    auto g = conv_geometry(workload);
    if (!g) return std::nullopt;
    define_conv2d_direct_space(s, *g, target);
  } else if ((task == "topi_nn_conv2d" && tkey == "winograd") ||
             task == "conv2d_nchw_winograd.cuda") {
    auto g = conv_geometry(workload);
    if (!g || g->kh != g->kw || g->stride_h != 1 || g->stride_w != 1) return std::nullopt;
    define_conv2d_winograd_space(s, *g, target);
  } else if ((task == "topi_nn_depthwise_conv2d_nchw" && tkey == "direct") ||
             task == "depthwise_conv2d_nchw.cuda") {
    auto g = conv_geometry(workload);
    if (!g) return std::nullopt;
    define_depthwise_space(s, *g, target);
  } else if (task == "group_conv2d_nchw.cuda") {
    auto g = conv_geometry(workload);
    if (!g) return std::nullopt;
    define_group_conv2d_space(s, *g, target);
  } else if (task == "topi_nn_dense" && tkey == "direct") {
    auto g = dense_geometry(workload);
    if (!g) return std::nullopt;
    if (g->batch < 32)
      define_dense_small_batch_space(s, *g);
    else
      define_dense_large_batch_space(s, *g);
  } else if (task == "dense_small_batch.cuda") {
    auto g = dense_geometry(workload);
    if (!g) return std::nullopt;
    define_dense_small_batch_space(s, *g);
  } else if (task == "dense_large_batch.cuda") {
    auto g = dense_geometry(workload);
    if (!g) return std::nullopt;
    define_dense_large_batch_space(s, *g);
  } else {
    return std::nullopt;
  }
  return s;
}

bool register_spaces() {
  for (const char* task :
       {"topi_nn_conv2d", "topi_nn_depthwise_conv2d_nchw", "topi_nn_dense", "conv2d_nchw.cuda",
        "conv2d_nchw_winograd.cuda", "depthwise_conv2d_nchw.cuda", "group_conv2d_nchw.cuda",
        "dense_small_batch.cuda", "dense_large_batch.cuda"})
    autotune::register_template_space(task, cuda_template_space);
  return true;
}

const bool spaces_registered = register_spaces();

}  // namespace

}  // namespace minitvm::topi
