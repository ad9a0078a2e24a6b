#include "topi/schedule_util.h"

#include <set>

namespace minitvm::topi::detail {

std::vector<te::Operation> ops_of(const std::vector<te::Tensor>& outs) {
  MINITVM_USER_CHECK(!outs.empty()) << "schedule: no output tensors";
  std::vector<te::Operation> r;
  for (auto& t : outs) r.push_back(t.op());
  return r;
}

bool is_output(const te::Schedule& s, const te::Operation& op) {
  for (auto& o : s.outputs())
    if (o.same_as(op)) return true;
  return false;
}

void traverse_inline(te::Schedule& s, const te::Operation& out,
                     const std::function<void(const te::Operation&)>& cb) {
  std::set<const ir::OperationNode*> visited;
  std::function<void(const te::Operation&)> visit = [&](const te::Operation& op) {
    if (!visited.insert(op.get()).second) return;
    if (op.op_type() != te::OpType::Compute) return;
    if (nn::is_injective_tag(op->tag) && !is_output(s, op)) s[op].compute_inline();
    for (auto& t : op.input_tensors()) visit(t.op());
    cb(op);
  };
  visit(out);
}

te::Operation inline_epilogue(te::Schedule& s, const te::Operation& out, const std::string& stop) {
  te::Operation found;
  std::set<const ir::OperationNode*> seen;
  std::function<void(const te::Operation&)> visit = [&](const te::Operation& op) {
    if (!seen.insert(op.get()).second || op.op_type() != te::OpType::Compute) return;
    if (op->tag == stop) {
      found = op;
      return;
    }
    if (nn::is_injective_tag(op->tag) && !is_output(s, op)) s[op].compute_inline();
    for (auto& in : op.input_tensors()) visit(in.op());
  };
  visit(out);
  MINITVM_USER_CHECK(found.defined())
      << "schedule: no " << stop << " stage in the fused group of " << out->name;
  return found;
}

te::Operation find_op_by_tag(const te::Operation& out, const std::string& tag) {
  std::set<const ir::OperationNode*> visited;
  te::Operation found;
  std::function<void(const te::Operation&)> visit = [&](const te::Operation& op) {
    if (found.defined() || !visited.insert(op.get()).second) return;
    if (op->tag == tag) {
      found = op;
      return;
    }
    for (auto& t : op.input_tensors()) visit(t.op());
  };
  visit(out);
  return found;
}

std::vector<IterVar> apply_split(te::Stage st, IterVar axis, const autotune::SplitEntity& e) {
  std::vector<IterVar> r;
  for (int64_t f : autotune::split_factors(e)) {
    auto [o, i] = st.split(axis, I(f));
    r.push_back(o);
    axis = i;
  }
  r.push_back(axis);
  return r;
}

void require_fits(const autotune::ConfigEntity& cfg,
                  const std::function<void(autotune::SpaceDefiner&)>& define,
                  const std::string& where) {
  if (cfg.is_fallback()) return;  // filled by the template's own fallback rule
  autotune::ConfigSpace space;
  define(space);
  // The shape the schedule code indexes (records were checked fully by check_record; a config
  // given through ApplyConfig may, as in TVM, use factors that leave guarded tails).
  for (const auto& k : space.knobs()) {
    MINITVM_CONFIG_CHECK(cfg.has(k.name) || k.record_default)
        << where << ": config " << cfg.str() << " has no knob '" << k.name << "'";
    if (!cfg.has(k.name)) continue;
    const autotune::Entity& v = cfg.get(k.name);
    MINITVM_CONFIG_CHECK(autotune::entity_kind(v) == k.kind)
        << where << ": knob '" << k.name << "' is " << autotune::entity_kind(v) << " "
        << autotune::entity_value_str(v) << ", the template defines a " << k.kind << " knob";
    if (auto* sp = std::get_if<autotune::SplitEntity>(&v))
      MINITVM_CONFIG_CHECK(static_cast<int>(sp->size.size()) == k.num_outputs)
          << where << ": knob '" << k.name << "' " << autotune::entity_value_str(v) << " has "
          << sp->size.size() << " part(s), the template splits the axis into " << k.num_outputs;
  }
}

int64_t knob_int(const autotune::ConfigEntity& cfg, const std::string& name) {
  const auto& v = cfg.other(name).val;
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  MINITVM_CONFIG_CHECK(v.is_number_integer()) << "knob " << name << " is not an integer";
  return v.get<int64_t>();
}

int64_t largest_divisor_at_most(int64_t n, int64_t cap) {
  for (int64_t d = std::min(n, cap); d >= 1; --d)
    if (n % d == 0) return d;
  return 1;
}

int64_t num_elements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace minitvm::topi::detail
