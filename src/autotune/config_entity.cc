// ConfigEntity, Knob and check_config (TVM v0.6 autotvm/task/space.py semantics; the spaces are
// space.cc).
#include <algorithm>
#include <cmath>

#include "autotune/space_internal.h"
#include "minitvm/autotune/json_text.h"
#include "minitvm/autotune/space.h"
#include "minitvm/support/error.h"

namespace minitvm::autotune {

using detail::int_list;
using detail::same_choice;

// ---- ConfigEntity ------------------------------------------------------------------------------

void ConfigEntity::set(const std::string& name, Entity value) {
  for (auto& [n, e] : entities_)
    if (n == name) {
      e = std::move(value);
      return;
    }
  entities_.emplace_back(name, std::move(value));
}

bool ConfigEntity::has(const std::string& name) const {
  for (auto& [n, e] : entities_)
    if (n == name) return true;
  return false;
}

const Entity& ConfigEntity::get(const std::string& name) const {
  for (auto& [n, e] : entities_)
    if (n == name) return e;
  MINITVM_CONFIG_CHECK(false) << "config " << str() << " has no knob '" << name << "'";
  static Entity dummy;
  return dummy;
}

const SplitEntity& ConfigEntity::split(const std::string& name) const {
  const Entity& e = get(name);
  MINITVM_CONFIG_CHECK(std::holds_alternative<SplitEntity>(e))
      << "knob '" << name << "' is not a split";
  return std::get<SplitEntity>(e);
}

const OtherOptionEntity& ConfigEntity::other(const std::string& name) const {
  const Entity& e = get(name);
  MINITVM_CONFIG_CHECK(std::holds_alternative<OtherOptionEntity>(e))
      << "knob '" << name << "' is not an option";
  return std::get<OtherOptionEntity>(e);
}

int64_t ConfigEntity::knob_int(const std::string& name) const {
  const Json& v = other(name).val;
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  MINITVM_CONFIG_CHECK(v.is_number_integer())
      << "knob '" << name << "' is not an integer: " << py_json_dumps(v);
  return v.get<int64_t>();
}

void ConfigEntity::collect(KnobSpace space) {
  if (!fallback_) return;  // a concrete config already carries its values
  MINITVM_USER_CHECK(!space.entities.empty()) << "knob '" << space.name << "' has an empty space";
  Entity first = space.entities[0];
  std::string name = space.name;
  space_.add(std::move(space));
  set(name, std::move(first));
}

void ConfigEntity::define_split(const std::string& name, int64_t length, const SplitOptions& opt) {
  if (fallback_) collect(make_split_space(name, length, opt));
}
void ConfigEntity::define_knob(const std::string& name, const std::vector<Json>& candidates) {
  if (fallback_) collect(make_knob_space(name, candidates));
}
void ConfigEntity::define_reorder(const std::string& name, int n, const std::string& policy,
                                  const std::vector<std::vector<int64_t>>& candidate) {
  if (fallback_) collect(make_reorder_space(name, n, policy, candidate));
}
void ConfigEntity::define_annotate(const std::string& name, int n, const std::string& policy,
                                   int num_anchor) {
  if (fallback_) collect(make_annotate_space(name, n, policy, num_anchor));
}

void ConfigEntity::set_record_default(const std::string& name, Entity value) {
  if (fallback_) space_.set_record_default(name, std::move(value));
}
void ConfigEntity::accept_swapped(const std::string& a, const std::string& b) {
  if (fallback_) space_.accept_swapped(a, b);
}

Knob ConfigEntity::operator[](const std::string& name) const {
  return Knob(name, &get(name));
}

// ---- Knob (the parts that do not touch a schedule; apply() is in tuner/template_api.cc) --------

const std::vector<int64_t>& Knob::size() const {
  auto* s = std::get_if<SplitEntity>(value_);
  MINITVM_CONFIG_CHECK(s) << "knob '" << name_ << "' is " << entity_kind(*value_) << " "
                          << entity_value_str(*value_) << ", not a split";
  return s->size;
}

const Json& Knob::val() const {
  auto* o = std::get_if<OtherOptionEntity>(value_);
  MINITVM_CONFIG_CHECK(o) << "knob '" << name_ << "' is " << entity_kind(*value_) << " "
                          << entity_value_str(*value_) << ", not an other-option knob";
  return o->val;
}

void Knob::check_parts(size_t n) const {
  size_t got = size().size();
  MINITVM_CONFIG_CHECK(got == n) << "knob '" << name_ << "' " << entity_value_str(*value_)
                                 << " splits into " << got << " parts, the template takes " << n;
}

// ---- check_config ------------------------------------------------------------------------------

namespace {

const char* kind_word(const std::string& k) {
  if (k == "sp") return "split";
  if (k == "re") return "reorder";
  if (k == "an") return "annotate";
  return "other-option";
}

// Why a split value does not fit one split space ("" when it does).
std::string split_misfit(const SplitEntity& v, const KnobSpace& k) {
  const std::string val = py_repr(int_list(v.size), false);
  if (static_cast<int>(v.size.size()) != k.num_outputs)
    return val + " has " + std::to_string(v.size.size()) +
           " part(s), the template splits the axis into " + std::to_string(k.num_outputs);
  if (k.axis_length > 0) {
    // Product of the inner parts, saturating above the extent (no overflow on hostile input).
    int64_t inner = 1;
    for (size_t i = 1; i < v.size.size(); ++i)
      inner = inner > k.axis_length / v.size[i] ? k.axis_length + 1 : inner * v.size[i];
    if (inner > k.axis_length)
      return val + ": the inner parts multiply to more than the axis extent " +
             std::to_string(k.axis_length);
    if (k.no_tail && v.size[0] != -1 &&
        (v.size[0] > k.axis_length / inner || v.size[0] * inner != k.axis_length))
      return val + ": the parts do not multiply to the axis extent " +
             std::to_string(k.axis_length);
    if (k.no_tail && k.axis_length % inner != 0)
      return val + ": the inner parts do not divide the axis extent " +
             std::to_string(k.axis_length);
  }
  for (const auto& e : k.entities)
    if (same_choice(e, Entity{v})) return "";
  return val + " is not one of the template's " + std::to_string(k.entities.size()) + " candidates";
}

}  // namespace

std::string check_config(const ConfigEntity& cfg, const ConfigSpace& space) {
  for (const auto& [name, v] : cfg.entities()) {
    const KnobSpace* k = space.find(name);
    if (!k) {
      std::string known;
      for (const auto& kk : space.knobs()) known += (known.empty() ? "" : ", ") + kk.name;
      return "unknown knob '" + name + "' (the template defines " +
             (known.empty() ? "no knobs" : known) + ")";
    }
    const std::string kind = entity_kind(v);
    if (kind != k->kind)
      return "knob '" + name + "' is a " + kind_word(kind) + " (" + kind + ") " +
             entity_value_str(v) + ", the template defines a " + kind_word(k->kind) + " (" +
             k->kind + ")";
    if (auto* sp = std::get_if<SplitEntity>(&v)) {
      std::string why = split_misfit(*sp, *k);
      if (!why.empty() && !k->swapped_with.empty())
        if (const KnobSpace* other = space.find(k->swapped_with);
            other && split_misfit(*sp, *other).empty())
          why.clear();
      if (!why.empty()) return "knob '" + name + "' " + why;
      continue;
    }
    bool found = false;
    for (const auto& e : k->entities) found = found || e == v;
    if (!found) {
      std::string cands;
      for (size_t i = 0; i < k->entities.size() && i < 8; ++i)
        cands += (i ? ", " : "") + entity_value_str(k->entities[i]);
      if (k->entities.size() > 8) cands += ", ...";
      return "knob '" + name + "' value " + entity_value_str(v) +
             " is not one of the template's candidates [" + cands + "]";
    }
  }
  for (const auto& k : space.knobs())
    if (!cfg.has(k.name) && !k.record_default)
      return "missing knob '" + k.name + "' (" + kind_word(k.kind) + ")";
  return "";
}

void require_config_fits(const ConfigEntity& cfg, const ConfigSpace& space,
                         const std::string& where) {
  std::string why = check_config(cfg, space);
  MINITVM_CONFIG_CHECK(why.empty())
      << where << ": config " << cfg.str() << " does not fit the template: " << why;
}

Json ConfigEntity::entity_json() const {
  Json a = Json::array();
  for (auto& [n, e] : entities_) a.push_back(Json::array({n, entity_kind(e), entity_to_json(e)}));
  return a;
}

std::string ConfigEntity::str() const {
  std::string s = "[";
  bool first = true;
  for (auto& [n, e] : entities_) {
    if (!first) s += ", ";
    first = false;
    s += "('" + n + "', " + entity_value_str(e) + ")";
  }
  s += "],";
  s += template_key.empty() ? "None" : template_key;
  s += ",";
  s += code_hash ? *code_hash : "None";
  s += "," + std::to_string(index);
  return s;
}

}  // namespace minitvm::autotune
