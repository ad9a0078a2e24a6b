// Knob spaces and the ConfigSpace flat index (TVM v0.6 autotvm/task/space.py semantics);
// ConfigEntity and check_config are config_entity.cc.
#include "minitvm/autotune/space.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "autotune/space_internal.h"
#include "minitvm/autotune/json_text.h"
#include "minitvm/support/error.h"

namespace minitvm::autotune {

namespace {
// Guards against unbounded work on hostile input (fuzzed logs, absurd shapes).
constexpr int64_t kMaxSplitLength = int64_t{1} << 48;
constexpr size_t kMaxKnobEntities = size_t{1} << 24;

template <class... Ts>
struct overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
overloaded(Ts...) -> overloaded<Ts...>;

}  // namespace

namespace detail {
Json int_list(const std::vector<int64_t>& v) {
  Json a = Json::array();
  for (auto x : v) a.push_back(x);
  return a;
}

bool same_choice(const Entity& space_e, const Entity& cfg_e) {
  if (space_e.index() != cfg_e.index()) return false;
  if (auto* a = std::get_if<SplitEntity>(&space_e)) {
    auto& b = std::get<SplitEntity>(cfg_e);
    return a->size.size() == b.size.size() &&
           std::equal(a->size.begin() + 1, a->size.end(), b.size.begin() + 1);
  }
  return space_e == cfg_e;
}
}  // namespace detail
using detail::int_list;
using detail::same_choice;

const char* entity_kind(const Entity& e) {
  return std::visit(
      overloaded{[](const SplitEntity&) { return "sp"; }, [](const ReorderEntity&) { return "re"; },
                 [](const AnnotateEntity&) { return "an"; },
                 [](const OtherOptionEntity&) { return "ot"; }},
      e);
}

Json entity_to_json(const Entity& e) {
  return std::visit(overloaded{[](const SplitEntity& s) { return int_list(s.size); },
                               [](const ReorderEntity& r) { return int_list(r.perm); },
                               [](const AnnotateEntity& a) { return a.anns; },
                               [](const OtherOptionEntity& o) { return o.val; }},
                    e);
}

std::string entity_value_str(const Entity& e) {
  if (auto* o = std::get_if<OtherOptionEntity>(&e)) {
    if (o->val.is_string()) return o->val.get<std::string>();  // Python str() of a str: no quotes
    return py_repr(o->val, false);
  }
  return py_repr(entity_to_json(e), false);
}

static std::vector<int64_t> read_int_list(const Json& v, const char* what) {
  MINITVM_USER_CHECK(v.is_array()) << what << " value must be a list, got " << py_json_dumps(v);
  std::vector<int64_t> out;
  out.reserve(v.size());
  for (const auto& x : v) {
    MINITVM_USER_CHECK(x.is_number_integer())
        << what << " value must hold integers, got " << py_json_dumps(v);
    MINITVM_USER_CHECK(!x.is_number_unsigned() || x.get<uint64_t>() <= uint64_t(INT64_MAX))
        << what << " value out of range: " << py_json_dumps(v);
    out.push_back(x.get<int64_t>());
  }
  return out;
}

Entity entity_from_json(const std::string& kind, const Json& value) {
  if (kind == "sp") {
    SplitEntity s{read_int_list(value, "split")};
    MINITVM_USER_CHECK(!s.size.empty()) << "split value is empty";
    for (size_t i = 0; i < s.size.size(); ++i) {
      bool ok = s.size[i] > 0 || (i == 0 && s.size[i] == -1);
      MINITVM_USER_CHECK(ok) << "split size " << s.size[i] << " at position " << i
                             << " is not positive in " << py_json_dumps(value);
    }
    return s;
  }
  if (kind == "re") {
    ReorderEntity r{read_int_list(value, "reorder")};
    for (auto x : r.perm)
      MINITVM_USER_CHECK(x >= 0) << "reorder value has a negative axis: " << py_json_dumps(value);
    return r;
  }
  if (kind == "an") {
    MINITVM_USER_CHECK(value.is_array())
        << "annotate value must be a list, got " << py_json_dumps(value);
    for (const auto& x : value)
      MINITVM_USER_CHECK(x.is_string() || x.is_number_integer())
          << "annotate value must hold strings or integers, got " << py_json_dumps(value);
    return AnnotateEntity{value};
  }
  if (kind == "ot") {
    MINITVM_USER_CHECK(value.is_primitive() && !value.is_null())
        << "other-option value must be a scalar, got " << py_json_dumps(value);
    MINITVM_USER_CHECK(!value.is_number_float() || std::isfinite(value.get<double>()))
        << "other-option value is not finite";
    return OtherOptionEntity{value};
  }
  MINITVM_USER_ERROR << "unknown knob type '" << kind << "' (expected sp, re, an or ot)";
  return {};
}

std::vector<int64_t> get_factors(int64_t n) {
  MINITVM_USER_CHECK(n >= 1) << "get_factors: " << n << " is not a positive integer";
  std::vector<int64_t> small, large;
  int64_t step = (n % 2) ? 2 : 1;
  for (int64_t i = 1; i <= n / i; i += step) {
    if (n % i == 0) {
      small.push_back(i);
      if (i != n / i) large.push_back(n / i);
    }
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

std::vector<int64_t> get_pow2s(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t p = 1; p <= n && p > 0; p <<= 1) out.push_back(p);
  return out;
}

// CPython 3.11 setobject.c, specialised to non-negative ints below 2^61 (hash(x) == x).
namespace {
struct PySetEmu {
  static constexpr size_t kLinearProbes = 9, kPerturbShift = 5;
  std::vector<int64_t> table = std::vector<int64_t>(8, -1);  // -1 = empty slot
  size_t fill = 0;
  size_t mask() const { return table.size() - 1; }

  static void insert_clean(std::vector<int64_t>& t, int64_t key) {
    size_t mask = t.size() - 1, perturb = static_cast<size_t>(key),
           i = static_cast<size_t>(key) & mask;
    while (true) {
      if (t[i] < 0) {
        t[i] = key;
        return;
      }
      if (i + kLinearProbes <= mask) {
        for (size_t j = 1; j <= kLinearProbes; ++j)
          if (t[i + j] < 0) {
            t[i + j] = key;
            return;
          }
      }
      perturb >>= kPerturbShift;
      i = (i * 5 + 1 + perturb) & mask;
    }
  }
  void resize(size_t minused) {
    size_t n = 8;
    while (n <= minused) n <<= 1;
    std::vector<int64_t> t(n, -1);
    for (int64_t k : table)
      if (k >= 0) insert_clean(t, k);
    table = std::move(t);
  }
  void add(int64_t key) {
    size_t m = mask(), perturb = static_cast<size_t>(key), i = static_cast<size_t>(key) & m;
    while (true) {
      size_t probes = (i + kLinearProbes <= m) ? kLinearProbes : 0;
      for (size_t j = 0; j <= probes; ++j) {
        int64_t k = table[i + j];
        if (k == key) return;
        if (k < 0) {
          table[i + j] = key;
          ++fill;
          if (fill * 5 >= m * 3) resize(fill > 50000 ? fill * 2 : fill * 4);
          return;
        }
      }
      perturb >>= kPerturbShift;
      i = (i * 5 + 1 + perturb) & m;
    }
  }
  // set_merge(self, other)
  void merge(const PySetEmu& other) {
    if (other.fill == 0) return;
    if ((fill + other.fill) * 5 >= mask() * 3) resize((fill + other.fill) * 2);
    if (fill == 0 && mask() == other.mask()) {
      table = other.table;
      fill = other.fill;
      return;
    }
    if (fill == 0) {
      for (int64_t k : other.table)
        if (k >= 0) insert_clean(table, k);
      fill = other.fill;
      return;
    }
    for (int64_t k : other.table)
      if (k >= 0) add(k);
  }
  std::vector<int64_t> items() const {
    std::vector<int64_t> out;
    for (int64_t k : table)
      if (k >= 0) out.push_back(k);
    return out;
  }
};
}  // namespace

std::vector<int64_t> cpython_set_union_order(const std::vector<int64_t>& a,
                                             const std::vector<int64_t>& b) {
  PySetEmu sa, sb, u;
  for (auto x : a) sa.add(x);
  for (auto x : b) sb.add(x);
  u.merge(sa);  // set_or: copy of a ...
  u.merge(sb);  // ... updated with b
  return u.items();
}

std::vector<int64_t> split_factors(const SplitEntity& e) {
  std::vector<int64_t> out;
  for (size_t i = 1; i < e.size.size(); ++i) {
    int64_t f = 1;
    for (size_t j = i; j < e.size.size(); ++j) f *= e.size[j];
    out.push_back(f);
  }
  return out;
}

std::vector<int64_t> split_extents(const SplitEntity& e, int64_t length) {
  if (e.size.size() <= 1) return {length};
  auto f = split_factors(e);
  std::vector<int64_t> out{(length + f[0] - 1) / f[0]};
  out.insert(out.end(), e.size.begin() + 1, e.size.end());
  return out;
}

KnobSpace make_split_space(const std::string& name, int64_t length, const SplitOptions& opt) {
  KnobSpace sp{name, "sp", {}};
  const int k = opt.num_outputs;
  sp.num_outputs = k;
  if (opt.policy != SplitPolicy::Candidate) sp.axis_length = length;
  sp.no_tail = opt.policy != SplitPolicy::Candidate &&
               opt.no_tail.value_or(opt.policy == SplitPolicy::Factors);
  MINITVM_USER_CHECK(k > 0) << "define_split('" << name << "'): num_outputs must be positive, got "
                            << k;
  if (opt.policy == SplitPolicy::Candidate) {
    for (const auto& c : opt.candidate) {
      MINITVM_USER_CHECK(static_cast<int>(c.size()) == k)
          << "define_split('" << name << "'): candidate of length " << c.size()
          << " for num_outputs " << k;
      sp.entities.push_back(SplitEntity{c});
    }
  } else {
    MINITVM_USER_CHECK(length >= 1 && length <= kMaxSplitLength)
        << "define_split('" << name << "'): axis length " << length << " out of range";
    MINITVM_USER_CHECK(k <= 16) << "define_split('" << name << "'): too many outputs (" << k << ")";
    std::vector<int64_t> f;
    if (opt.policy == SplitPolicy::Factors)
      f = get_factors(length);
    else if (opt.policy == SplitPolicy::Power2)
      f = get_pow2s(length);
    else
      f = cpython_set_union_order(get_factors(length), get_pow2s(length));
    std::erase_if(f, [&](int64_t x) { return x > opt.max_factor; });
    bool no_tail = opt.no_tail.value_or(opt.policy == SplitPolicy::Factors);
    std::vector<int64_t> stack;
    // Depth-first, slot 0 outermost; a partial product above `length` can never lead to a kept
    // leaf (all factors >= 1), so those branches are pruned without changing the order.
    std::function<void(int64_t)> dfs = [&](int64_t prod) {
      if (static_cast<int>(stack.size()) == k - 1) {
        if (length % prod == 0 || (!no_tail && prod < length)) {
          SplitEntity e{{-1}};
          e.size.insert(e.size.end(), stack.rbegin(), stack.rend());
          MINITVM_USER_CHECK(sp.entities.size() < kMaxKnobEntities)
              << "define_split('" << name << "'): space too large";
          sp.entities.push_back(std::move(e));
        }
        return;
      }
      for (int64_t x : f) {
        if (x > length / prod) continue;  // prod * x > length
        stack.push_back(x);
        dfs(prod * x);
        stack.pop_back();
      }
    };
    dfs(1);
  }
  if (opt.filter)
    std::erase_if(sp.entities,
                  [&](const Entity& e) { return !opt.filter(std::get<SplitEntity>(e)); });
  return sp;
}

KnobSpace make_knob_space(const std::string& name, const std::vector<Json>& candidates) {
  KnobSpace sp{name, "ot", {}};
  for (const auto& c : candidates) sp.entities.push_back(OtherOptionEntity{c});
  return sp;
}

KnobSpace make_reorder_space(const std::string& name, int n, const std::string& policy,
                             const std::vector<std::vector<int64_t>>& candidate) {
  KnobSpace sp{name, "re", {}};
  MINITVM_USER_CHECK(n >= 0 && n <= 10) << "define_reorder('" << name << "'): bad axis count " << n;
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  if (policy == "identity") {
    sp.entities.push_back(ReorderEntity{perm});
  } else if (policy == "all") {
    do sp.entities.push_back(ReorderEntity{perm});
    while (std::next_permutation(perm.begin(), perm.end()));
  } else if (policy == "candidate") {
    for (const auto& c : candidate) sp.entities.push_back(ReorderEntity{c});
  } else {
    MINITVM_USER_ERROR << "define_reorder('" << name << "'): policy '" << policy
                       << "' is not supported";
  }
  return sp;
}

KnobSpace make_annotate_space(const std::string& name, int n, const std::string& policy,
                              int num_anchor) {
  KnobSpace sp{name, "an", {}};
  MINITVM_USER_CHECK(n >= 0 && n <= 16)
      << "define_annotate('" << name << "'): bad axis count " << n;
  auto with_fuse = [&](int keep, std::vector<std::string> tail) {
    Json a = Json::array();
    for (int i = 0; i < n - keep; ++i) a.push_back("fuse");
    for (auto& t : tail) a.push_back(t);
    sp.entities.push_back(AnnotateEntity{a});
  };
  if (policy == "bind_gpu") {
    if (n >= 6)
      with_fuse(6, {"blockIdx.z", "blockIdx.y", "blockIdx.x", "threadIdx.z", "threadIdx.y",
                    "threadIdx.x"});
    else if (n >= 4)
      with_fuse(4, {"blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"});
    else if (n >= 2)
      with_fuse(2, {"blockIdx.x", "threadIdx.x"});
    else
      MINITVM_USER_ERROR << "define_annotate('" << name << "'): bind_gpu needs at least 2 axes";
  } else if (policy == "bind_gpu_virtual") {
    if (n >= 9)
      with_fuse(9, {"blockIdx.z", "blockIdx.y", "blockIdx.x", "vthread", "vthread", "vthread",
                    "threadIdx.z", "threadIdx.y", "threadIdx.x"});
    else if (n >= 6)
      with_fuse(6,
                {"blockIdx.y", "blockIdx.x", "vthread", "vthread", "threadIdx.y", "threadIdx.x"});
    else if (n >= 3)
      with_fuse(3, {"blockIdx.x", "vthread", "threadIdx.x"});
    else
      MINITVM_USER_ERROR << "define_annotate('" << name
                         << "'): bind_gpu_virtual needs at least 3 axes";
  } else if (policy == "locate_cache") {
    MINITVM_USER_CHECK(num_anchor >= 0 && num_anchor <= n)
        << "define_annotate('" << name << "'): bad num_anchor " << num_anchor;
    std::vector<bool> pick(n, false);
    std::fill(pick.begin(), pick.begin() + num_anchor, true);
    // Lexicographic combinations of range(n): iterate selection masks in reverse-permutation order.
    do {
      Json a = Json::array();
      for (int i = 0; i < n; ++i)
        if (pick[i]) a.push_back(i);
      sp.entities.push_back(AnnotateEntity{a});
    } while (std::prev_permutation(pick.begin(), pick.end()));
  } else {
    std::vector<std::string> choices;
    std::string p = policy;
    size_t pos = 0;
    while (true) {
      size_t e = p.find('_', pos);
      std::string tok = p.substr(pos, e == std::string::npos ? std::string::npos : e - pos);
      choices.push_back(tok == "try" ? "none" : tok);
      if (e == std::string::npos) break;
      pos = e + 1;
    }
    for (auto& c : choices)
      MINITVM_USER_CHECK(c == "none" || c == "unroll" || c == "vec")
          << "define_annotate('" << name << "'): unknown policy '" << policy << "'";
    std::vector<std::string> cur;
    std::function<void(int, int)> dfs = [&](int axis, int vecs) {
      if (axis == n) {
        Json a = Json::array();
        for (auto& c : cur) a.push_back(c);
        sp.entities.push_back(AnnotateEntity{a});
        return;
      }
      for (auto& c : choices) {
        int v = vecs + (c == "vec");
        if (v > 1) continue;
        cur.push_back(c);
        dfs(axis + 1, v);
        cur.pop_back();
      }
    };
    dfs(0, 0);
  }
  return sp;
}

// ---- ConfigSpace -------------------------------------------------------------------------------

void ConfigSpace::add(KnobSpace space) {
  for (auto& k : knobs_)
    if (k.name == space.name) {
      k = std::move(space);
      return;
    }
  knobs_.push_back(std::move(space));
}

void ConfigSpace::define_split(const std::string& name, int64_t length, const SplitOptions& opt) {
  add(make_split_space(name, length, opt));
}
void ConfigSpace::define_knob(const std::string& name, const std::vector<Json>& candidates) {
  add(make_knob_space(name, candidates));
}
void ConfigSpace::define_reorder(const std::string& name, int n, const std::string& policy,
                                 const std::vector<std::vector<int64_t>>& candidate) {
  add(make_reorder_space(name, n, policy, candidate));
}
void ConfigSpace::define_annotate(const std::string& name, int n, const std::string& policy,
                                  int num_anchor) {
  add(make_annotate_space(name, n, policy, num_anchor));
}

void ConfigSpace::set_record_default(const std::string& name, Entity value) {
  for (auto& k : knobs_)
    if (k.name == name) {
      k.record_default = std::move(value);
      return;
    }
  MINITVM_USER_ERROR << "set_record_default: no knob '" << name << "' defined yet";
}

void ConfigSpace::accept_swapped(const std::string& a, const std::string& b) {
  KnobSpace *ka = nullptr, *kb = nullptr;
  for (auto& k : knobs_) {
    if (k.name == a) ka = &k;
    if (k.name == b) kb = &k;
  }
  MINITVM_USER_CHECK(ka && kb && ka->kind == "sp" && kb->kind == "sp")
      << "accept_swapped: '" << a << "' and '" << b << "' must be defined split knobs";
  ka->swapped_with = b;
  kb->swapped_with = a;
}

const KnobSpace* ConfigSpace::find(const std::string& name) const {
  for (auto& k : knobs_)
    if (k.name == name) return &k;
  return nullptr;
}

int64_t ConfigSpace::size() const {
  int64_t n = 1;
  for (auto& k : knobs_) {
    int64_t s = static_cast<int64_t>(k.size());
    if (s == 0) return 0;
    MINITVM_USER_CHECK(n <= INT64_MAX / s) << "config space size overflows int64";
    n *= s;
  }
  return n;
}

ConfigEntity ConfigSpace::get(int64_t index, const std::string& template_key) const {
  int64_t n = size();
  MINITVM_USER_CHECK(index >= 0 && index < n)
      << "config index " << index << " outside the space [0, " << n << ")";
  ConfigEntity c;
  c.index = index;
  c.template_key = template_key;
  int64_t t = index;
  for (auto& k : knobs_) {
    int64_t s = static_cast<int64_t>(k.size());
    c.set(k.name, k.entities[t % s]);
    t /= s;
  }
  return c;
}

std::optional<int64_t> ConfigSpace::index_of(const ConfigEntity& cfg) const {
  int64_t index = 0, radix = 1;
  for (auto& k : knobs_) {
    // A knob the config lacks counts as its record default (a record tuned before the knob
    // existed, as check_config and the dispatch read it).
    if (!cfg.has(k.name) && !k.record_default) return std::nullopt;
    const Entity& v = cfg.has(k.name) ? cfg.get(k.name) : *k.record_default;
    int64_t choice = -1;
    for (size_t i = 0; i < k.entities.size(); ++i)
      if (same_choice(k.entities[i], v)) {
        choice = static_cast<int64_t>(i);
        break;
      }
    if (choice < 0) return std::nullopt;
    index += choice * radix;
    radix *= static_cast<int64_t>(k.size());
  }
  return index;
}

}  // namespace minitvm::autotune
