// CodeGenCUDA: the CUDA C target hooks of CodeGenC (see include/minitvm/codegen/codegen_cuda.h).
#include "minitvm/codegen/codegen_cuda.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace minitvm::codegen {

using namespace ir;

namespace {
bool is_f16(DataType t) {
  return t.is_float() && t.bits() == 16;
}
bool is_bf16(DataType t) {
  return t.is_bfloat() && t.bits() == 16;
}

// float -> bfloat16 conversion function of the 16-bit type `t` and back ("__half2float" ...).
const char* from_f32(DataType t) {
  return is_bf16(t) ? "__float2bfloat16_rn" : "__float2half_rn";
}
const char* to_f32(DataType t) {
  return is_bf16(t) ? "__bfloat162float" : "__half2float";
}
}  // namespace

uint16_t bfloat16_bits(double v) {
  if (std::isnan(v)) return 0x7FFF;  // CUDA's canonical bfloat16 NaN (CUDART_NAN_BF16)
  float f = static_cast<float>(v);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  // Round to odd into float (truncate toward zero, then set the last bit when inexact): the second
  // rounding to bfloat16's 8 significant bits is then the correctly rounded one.
  if (std::isfinite(f) && static_cast<double>(f) != v) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(v)) --u;
    u |= 1u;
  }
  u += 0x7FFFu + ((u >> 16) & 1u);  // nearest, ties to even (an overflow carries into inf)
  return static_cast<uint16_t>(u >> 16);
}

CodeGenCUDA::CodeGenCUDA() {
  for (const char* n : {"mtvm_min", "mtvm_max", "mtvm_floordiv", "mtvm_floormod"})
    global_names_.push_back(n);
}

int64_t kernel_block_threads(const PrimFunc& kernel) {
  std::unordered_map<std::string, int64_t> ext;
  post_order_visit(kernel->body, [&](const Ref<Object>& n) {
    auto* a = n.as<AttrStmtNode>();
    if (!a || a->attr_kind != AttrKind::ThreadExtent) return;
    auto* iv = a->node.as<IterVarNode>();
    const int64_t* c = as_const_int(a->value);
    if (iv && c && iv->thread_tag.rfind("threadIdx.", 0) == 0) ext[iv->thread_tag] = *c;
  });
  int64_t threads = 1;
  for (auto& [tag, e] : ext) threads *= e;
  return threads;
}

void CodeGenCUDA::print_type(DataType t, std::ostream& os) {
  int lanes = t.lanes();
  if (t.is_handle()) {
    os << "void*";
    return;
  }
  if (t.is_float() && t.bits() == 16) {
    need_fp16_ = true;
    if (lanes == 1)
      os << "half";
    else if (lanes == 2)
      os << "half2";
    else
      MINITVM_USER_ERROR << "CUDA: vector type " << t
                         << " is not supported (half has 1 or 2 lanes)";
    return;
  }
  if (is_bf16(t)) {
    need_bf16_ = true;
    if (lanes == 1)
      os << "__nv_bfloat16";
    else if (lanes == 2)
      os << "__nv_bfloat162";
    else
      MINITVM_USER_ERROR << "CUDA: vector type " << t
                         << " is not supported (__nv_bfloat16 has 1 or 2 lanes)";
    return;
  }
  const char* base = nullptr;
  if (t.is_bool())
    base = "bool";
  else if (t.is_float() && t.bits() == 32)
    base = "float";
  else if (t.is_float() && t.bits() == 64)
    base = "double";
  else if (t.is_int() && t.bits() == 8)
    base = lanes == 1 ? "signed char" : "char";
  else if (t.is_uint() && t.bits() == 8)
    base = lanes == 1 ? "unsigned char" : "uchar";
  else if (t.is_int() && t.bits() == 16)
    base = "short";
  else if (t.is_uint() && t.bits() == 16)
    base = lanes == 1 ? "unsigned short" : "ushort";
  else if (t.is_int() && t.bits() == 32)
    base = "int";
  else if (t.is_uint() && t.bits() == 32)
    base = lanes == 1 ? "unsigned int" : "uint";
  else if (t.is_int() && t.bits() == 64)
    base = lanes == 1 ? "long long" : "longlong";
  else if (t.is_uint() && t.bits() == 64)
    base = lanes == 1 ? "unsigned long long" : "ulonglong";
  MINITVM_USER_CHECK(base) << "CUDA: type " << t << " is not supported";
  os << base;
  if (lanes > 1) {
    MINITVM_USER_CHECK(lanes <= 4 && !t.is_bool())
        << "CUDA: vector type " << t << " is not supported";
    os << lanes;
  }
}

void CodeGenCUDA::print_func_prefix(const PrimFunc&, std::ostream& os) {
  os << "extern \"C\" __global__ void";
}

void CodeGenCUDA::print_func_attrs(const PrimFunc& f, std::ostream& os) {
  int64_t threads = kernel_block_threads(f);
  if (threads > 1) os << " __launch_bounds__(" << threads << ")";
}

void CodeGenCUDA::print_storage_scope(StorageScope scope, std::ostream& os) {
  MINITVM_USER_CHECK(scope != StorageScope::Warp)
      << "CUDA: warp memory must be lowered before code generation";
  if (scope == StorageScope::Shared) os << "__shared__";
}

void CodeGenCUDA::bind_thread_index(const IterVar& iv) {
  const std::string& tag = iv.thread_tag();
  bool ok = tag.size() >= 3 && (tag.rfind("threadIdx.", 0) == 0 || tag.rfind("blockIdx.", 0) == 0);
  MINITVM_USER_CHECK(ok) << "CUDA: cannot bind thread axis '" << tag
                         << "' (expected blockIdx.x/y/z or threadIdx.x/y/z)";
  std::ostringstream os;
  os << "((";
  print_type(iv.var().dtype(), os);
  os << ")" << tag << ")";
  bind_var_text(iv.var().get(), os.str());
}

void CodeGenCUDA::print_storage_sync(const CallNode* op) {
  std::string scope = "shared";
  if (!op->args.empty()) {
    if (auto* s = op->args[0].as<StringImmNode>()) scope = s->value;
  }
  if (scope == "warp") return;
  MINITVM_USER_CHECK(scope == "shared")
      << "CUDA: tvm_storage_sync(\"" << scope << "\") is not supported";
  print_indent();
  stream_ << "__syncthreads();\n";
}

bool CodeGenCUDA::supports_vector_access(DataType t) const {
  if (is_f16(t) || is_bf16(t)) return t.lanes() == 2;
  if (t.bits() == 32 && (t.is_float() || t.is_int() || t.is_uint()))
    return t.lanes() == 2 || t.lanes() == 4;
  if (t.bits() == 64 && (t.is_float() || t.is_int() || t.is_uint())) return t.lanes() == 2;
  return false;
}

void CodeGenCUDA::print_vec_construct(DataType t, const std::vector<std::string>& lanes,
                                      std::ostream& os) {
  if (t.is_float() && t.bits() == 16) {
    MINITVM_USER_CHECK(lanes.size() == 2) << "CUDA: cannot build a " << t << " value";
    need_fp16_ = true;
    os << "__halves2half2(" << lanes[0] << ", " << lanes[1] << ")";
    return;
  }
  if (is_bf16(t)) {
    MINITVM_USER_CHECK(lanes.size() == 2) << "CUDA: cannot build a " << t << " value";
    need_bf16_ = true;
    os << "__halves2bfloat162(" << lanes[0] << ", " << lanes[1] << ")";
    return;
  }
  std::ostringstream ty;
  print_type(t, ty);
  os << "make_" << ty.str() << "(";
  for (size_t i = 0; i < lanes.size(); ++i) os << (i ? ", " : "") << lanes[i];
  os << ")";
}

void CodeGenCUDA::print_float_const(DataType t, double v, std::ostream& os) {
  if (is_bf16(t)) {
    // The literal is rounded here (once, from the double); NaN and +-inf (also values that round
    // to inf) are bit patterns, anything else the exactly representable float converted by CUDA.
    need_bf16_ = true;
    uint16_t b = bfloat16_bits(v);
    if ((b & 0x7F80u) == 0x7F80u) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%04X", static_cast<unsigned>(b));
      os << "__ushort_as_bfloat16((unsigned short)" << hex << "U)";
    } else {
      uint32_t u = static_cast<uint32_t>(b) << 16;
      float f;
      std::memcpy(&f, &u, 4);
      os << "__float2bfloat16_rn(";
      CodeGenC::print_float_const(DataType::Float(32), f, os);
      os << ")";
    }
    return;
  }
  if (t.bits() == 16) {
    need_fp16_ = true;
    if (std::isnan(v))
      os << "__ushort_as_half((unsigned short)0x7E00U)";
    else if (std::isinf(v) || std::fabs(v) >= 65520.0)  // rounds to inf in binary16
      os << "__ushort_as_half((unsigned short)" << (v < 0 ? "0xFC00U" : "0x7C00U") << ")";
    else {
      os << "__float2half_rn(";
      CodeGenC::print_float_const(DataType::Float(32), v, os);
      os << ")";
    }
    return;
  }
  if (t.bits() == 32 && !std::isfinite(v)) {
    os << "__int_as_float("
       << (std::isnan(v) ? "0x7fc00000"
           : v < 0       ? "0xff800000"
                         : "0x7f800000")
       << ")";
    return;
  }
  if (t.bits() == 64 && !std::isfinite(v)) {
    os << "__longlong_as_double("
       << (std::isnan(v) ? "0x7ff8000000000000LL"
           : v < 0       ? "(long long)0xfff0000000000000ULL"
                         : "0x7ff0000000000000LL")
       << ")";
    return;
  }
  CodeGenC::print_float_const(t, v, os);
}

void CodeGenCUDA::print_min_max(bool is_max, const Expr& a, const Expr& b, std::ostream& os) {
  DataType t = a.dtype();
  if (is_bf16(t)) {
    need_minmax_bf16_ = need_bf16_ = true;
    os << (is_max ? "mtvm_max(" : "mtvm_min(") << print_expr(a) << ", " << print_expr(b) << ")";
    return;
  }
  if (t.is_float()) {
    if (is_f16(t))
      need_minmax_f16_ = need_fp16_ = true;
    else if (t.bits() == 32)
      need_minmax_f32_ = true;
    else
      need_minmax_f64_ = true;
    os << (is_max ? "mtvm_max(" : "mtvm_min(") << print_expr(a) << ", " << print_expr(b) << ")";
    return;
  }
  CodeGenC::print_min_max(is_max, a, b, os);
}

namespace {
const char* math_name(Intrinsic op) {
  // The C math functions CUDA provides under the same names as the IR's intrinsics.
  switch (op) {
    case Intrinsic::Exp:
    case Intrinsic::Log:
    case Intrinsic::Sqrt:
    case Intrinsic::Tanh:
    case Intrinsic::Fabs:
    case Intrinsic::Floor:
    case Intrinsic::Ceil:
    case Intrinsic::Round:
    case Intrinsic::Trunc:
    case Intrinsic::Pow:
    case Intrinsic::Erf:
    case Intrinsic::Exp2:
    case Intrinsic::Log2:
    case Intrinsic::Rsqrt:
      return intrinsic_name(op);
    default:
      return nullptr;
  }
}
}  // namespace

void CodeGenCUDA::print_math_call(const CallNode* op, std::ostream& os) {
  const auto& a = op->args;
  DataType in = a.empty() ? op->dtype : a[0].dtype();
  // float16 / bfloat16 operands: cuda_fp16.h / cuda_bf16.h spell the same functions alike.
  bool half = is_f16(in) || is_bf16(in);
  if (op->op == Intrinsic::IsNan || op->op == Intrinsic::IsInf) {
    bool nan = op->op == Intrinsic::IsNan;
    if (half)
      os << "(" << (nan ? "__hisnan(" : "__hisinf(") << print_expr(a.at(0)) << ") != 0)";
    else if (in.is_float())
      os << (nan ? "isnan(" : "isinf(") << print_expr(a.at(0)) << ")";
    else
      os << "false";
    return;
  }
  if (op->op == Intrinsic::Reinterpret) {
    DataType to = op->dtype;
    std::string x = print_expr(a.at(0));
    if (to.is_float() && to.bits() == 32 && in.is_int())
      os << "__int_as_float(" << x << ")";
    else if (to.is_float() && to.bits() == 32 && in.is_uint())
      os << "__uint_as_float(" << x << ")";
    else if (to.is_int() && to.bits() == 32 && in.is_float())
      os << "__float_as_int(" << x << ")";
    else if (to.is_uint() && to.bits() == 32 && in.is_float())
      os << "__float_as_uint(" << x << ")";
    else if (to.is_float() && to.bits() == 64)
      os << "__longlong_as_double(" << x << ")";
    else if (to.is_int() && to.bits() == 64 && in.is_float())
      os << "__double_as_longlong(" << x << ")";
    else if (is_f16(to) && !half)
      os << "__ushort_as_half((unsigned short)" << x << ")";
    else if (is_bf16(to) && !half)
      os << "__ushort_as_bfloat16((unsigned short)" << x << ")";
    else if (half && (to.is_int() || to.is_uint()) && to.bits() == 16)
      os << "((" << (to.is_int() ? "short" : "unsigned short") << ")"
         << (is_bf16(in) ? "__bfloat16_as_ushort(" : "__half_as_ushort(") << x << "))";
    else
      MINITVM_USER_ERROR << "CUDA: reinterpret " << in << " as " << to << " is not supported";
    return;
  }
  const char* name = math_name(op->op);
  if (op->op == Intrinsic::Sigmoid || name) {
    MINITVM_USER_CHECK(in.is_floating())
        << "CUDA: " << op->name << " of type " << in << " is not supported";
    // float32: suffix f; float64: plain; float16/bfloat16: computed in float and rounded back.
    auto arg = [&](size_t i) {
      std::string s = print_expr(a.at(i));
      return half ? std::string(to_f32(in)) + "(" + s + ")" : s;
    };
    std::string sfx = in.bits() == 64 ? "" : "f";
    std::string r;
    if (op->op == Intrinsic::Sigmoid) {
      std::string one = in.bits() == 64 ? "1.0" : "1.000000e+00f";
      r = "(" + one + " / (" + one + " + exp" + sfx + "((-" + arg(0) + "))))";
    } else {
      r = std::string(name) + sfx + "(" + arg(0);
      for (size_t i = 1; i < a.size(); ++i) r += ", " + arg(i);
      r += ")";
    }
    if (half)
      os << from_f32(in) << "(" << r << ")";
    else
      os << r;
    return;
  }
  CodeGenC::print_math_call(op, os);
}

void CodeGenCUDA::print_cast(DataType to, const Expr& value, std::ostream& os) {
  DataType from = value.dtype();
  if (to == from) {
    print_expr(value, os);
    return;
  }
  if (is_bf16(to)) {
    // One correctly rounded conversion from every source type (double and 32/64-bit integers
    // have their own intrinsics: going through float would round twice).
    need_bf16_ = true;
    std::string x = print_expr(value);
    if (from.is_float() && from.bits() == 32)
      os << "__float2bfloat16_rn(" << x << ")";
    else if (from.is_float() && from.bits() == 64)
      os << "__double2bfloat16(" << x << ")";
    else if (is_f16(from))
      os << "__float2bfloat16_rn(__half2float(" << x << "))";  // exact in float
    else if (from.is_int() && from.bits() == 32)
      os << "__int2bfloat16_rn(" << x << ")";
    else if (from.is_uint() && from.bits() == 32)
      os << "__uint2bfloat16_rn(" << x << ")";
    else if (from.is_int() && from.bits() == 64)
      os << "__ll2bfloat16_rn(" << x << ")";
    else if (from.is_uint() && from.bits() == 64)
      os << "__ull2bfloat16_rn(" << x << ")";
    else
      os << "__float2bfloat16_rn(((float)" << x << "))";  // bool, 8/16-bit integers: exact in float
    return;
  }
  if (is_bf16(from)) {
    need_bf16_ = true;
    std::string x = "__bfloat162float(" + print_expr(value) + ")";  // exact
    if (to.is_float() && to.bits() == 32)
      os << x;
    else if (is_f16(to))
      os << "__float2half_rn(" << x << ")";
    else {
      os << "((";
      print_type(to, os);
      os << ")" << x << ")";
    }
    return;
  }
  bool to_half = is_f16(to), from_half = is_f16(from);
  if (to_half) {
    // One correctly rounded conversion, as for bfloat16 above: double and 32/64-bit integers
    // have their own intrinsics (through float they would round twice).
    need_fp16_ = true;
    std::string x = print_expr(value);
    if (from.is_float() && from.bits() == 32)
      os << "__float2half_rn(" << x << ")";
    else if (from.is_float() && from.bits() == 64)
      os << "__double2half(" << x << ")";
    else if (from.is_int() && from.bits() == 32)
      os << "__int2half_rn(" << x << ")";
    else if (from.is_uint() && from.bits() == 32)
      os << "__uint2half_rn(" << x << ")";
    else if (from.is_int() && from.bits() == 64)
      os << "__ll2half_rn(" << x << ")";
    else if (from.is_uint() && from.bits() == 64)
      os << "__ull2half_rn(" << x << ")";
    else
      os << "__float2half_rn(((float)" << x << "))";  // bool, 8/16-bit integers: exact in float
    return;
  }
  if (from_half) {
    need_fp16_ = true;
    if (to.is_float() && to.bits() == 32) {
      os << "__half2float(" << print_expr(value) << ")";
    } else {
      os << "((";
      print_type(to, os);
      os << ")__half2float(" << print_expr(value) << "))";
    }
    return;
  }
  CodeGenC::print_cast(to, value, os);
}

void CodeGenCUDA::print_unroll_hint() {
  print_indent();
  stream_ << "#pragma unroll\n";
}

void CodeGenCUDA::print_alloc_alignment(const AllocateNode*, std::ostream& os) {
  os << "__align__(16) ";
}

std::string CodeGenCUDA::preamble() {
  std::string s;
  if (need_fp16_ || need_bf16_) {
    if (need_fp16_) s += "#include <cuda_fp16.h>\n";
    if (need_bf16_) s += "#include <cuda_bf16.h>\n";
    s += "\n";
  }
  const char* q = "static __device__ __forceinline__ ";
  auto minmax = [&](const std::string& ty, const std::string& gt, const std::string& lt,
                    const std::string& nan) {
    s += std::string(q) + ty + " mtvm_max(" + ty + " a, " + ty + " b) { return (" + gt + " || " +
         nan + ") ? a : b; }\n";
    s += std::string(q) + ty + " mtvm_min(" + ty + " a, " + ty + " b) { return (" + lt + " || " +
         nan + ") ? a : b; }\n";
  };
  // NaN-propagating min/max (a NaN operand wins), unlike fmaxf/fminf.
  if (need_minmax_f32_) minmax("float", "a > b", "a < b", "isnan(a)");
  if (need_minmax_f64_) minmax("double", "a > b", "a < b", "isnan(a)");
  if (need_minmax_f16_) minmax("half", "__hgt(a, b)", "__hlt(a, b)", "__hisnan(a)");
  if (need_minmax_bf16_) minmax("__nv_bfloat16", "__hgt(a, b)", "__hlt(a, b)", "__hisnan(a)");
  if (need_floordiv_) {
    for (const char* ty : {"int", "long long"}) {
      std::string t = ty;
      s += std::string(q) + t + " mtvm_floordiv(" + t + " a, " + t + " b) { " + t +
           " q = a / b; return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q; }\n";
      s += std::string(q) + t + " mtvm_floormod(" + t + " a, " + t + " b) { " + t +
           " r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n";
    }
  }
  if (!s.empty() && s.back() == '\n' && s.find("mtvm_") != std::string::npos) s += "\n";
  return s;
}

}  // namespace minitvm::codegen
