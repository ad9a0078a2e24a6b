// fuse_ops: TVM's FuseOps. Contract: transform.h.
#include <algorithm>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "minitvm/relay/transform.h"

namespace minitvm::relay::transform {

namespace {

using P = OpPattern;
P combine(P a, P b) {
  return static_cast<int>(a) > static_cast<int>(b) ? a : b;
}
bool le(P a, P b) {
  return static_cast<int>(a) <= static_cast<int>(b);
}

// Indexed forward graph.
struct GNode {
  Expr ref;
  int index = 0;
  P pattern = P::kOpaque;
  bool extern_ref = false;
  std::vector<std::pair<int, P>> outputs;  // (consumer, edge pattern)
};

std::vector<GNode> forward_graph(const Function& f) {
  std::vector<GNode> g;
  std::unordered_map<const ExprNode*, int> id;
  for (const Expr& e : post_order(f.body)) {
    GNode n;
    n.ref = e;
    n.index = static_cast<int>(g.size());
    switch (e->kind) {
      case ExprKind::Call:
        n.pattern = op_pattern(e->name);
        break;
      case ExprKind::Constant:
        n.pattern = e->types[0].numel() == 1 && e->data.ndim() == 0 ? P::kElemWise : P::kOpaque;
        break;
      default:
        n.pattern = P::kOpaque;
        break;  // vars; tuples and projections stay unfused here
    }
    id[e.get()] = n.index;
    g.push_back(n);
  }
  for (auto& n : g) {
    const Expr& e = n.ref;
    for (auto& a : e->args) {
      P edge = P::kOpaque;
      if (e->kind == ExprKind::Call) {
        edge = n.pattern;
        if (edge == P::kBroadcast && !a->tuple_typed && a->types[0].shape == e->types[0].shape)
          edge = P::kElemWise;
      }
      g[id.at(a.get())].outputs.push_back({n.index, edge});
    }
  }
  g[id.at(f.body.get())].extern_ref = true;
  for (auto& p : f.params)
    if (id.count(p.get())) g[id.at(p.get())].extern_ref = true;
  return g;
}

// Post-dominator tree.
struct DomNode {
  DomNode* parent = nullptr;
  int depth = 0;
  P pattern = P::kOpaque;
  int gindex = 0;
};

DomNode* lca(DomNode* l, DomNode* r, P& edge) {
  while (l != r) {
    if (!l || !r) return nullptr;
    if (l->depth < r->depth) {
      edge = combine(edge, r->pattern);
      r = r->parent;
    } else if (r->depth < l->depth) {
      edge = combine(edge, l->pattern);
      l = l->parent;
    } else {
      edge = combine(edge, l->pattern);
      edge = combine(edge, r->pattern);
      l = l->parent;
      r = r->parent;
    }
  }
  return l;
}

std::vector<DomNode> post_dom_tree(const std::vector<GNode>& g) {
  std::vector<DomNode> t(g.size());
  for (size_t i = g.size(); i-- > 0;) {
    DomNode& d = t[i];
    d.gindex = static_cast<int>(i);
    if (g[i].extern_ref) {
      d.depth = 1;
      d.parent = nullptr;
      d.pattern = P::kOpaque;
      continue;
    }
    P edge = P::kElemWise;
    DomNode* parent = nullptr;
    bool first = true;
    for (auto& [c, p] : g[i].outputs) {
      edge = combine(edge, p);
      parent = first ? &t[c] : lca(parent, &t[c], edge);
      first = false;
    }
    d.parent = parent;
    d.depth = parent ? parent->depth + 1 : 1;
    d.pattern = edge;
  }
  return t;
}

// Union-find groups.
struct Group {
  Group* parent = nullptr;
  P pattern = P::kOpaque;
  int root_ref = -1;
  int master_ref = -1;
  int num_nodes = 1;
  Group* root() {
    Group* r = this;
    while (r->parent) r = r->parent;
    for (Group* p = this; p != r;) {  // path compression
      Group* next = p->parent;
      p->parent = r;
      p = next;
    }
    return r;
  }
};

class Partitioner {
 public:
  Partitioner(const std::vector<GNode>& g, const std::vector<DomNode>& dom)
      : g_(g), dom_(dom), groups_(g.size()) {
    for (size_t i = 0; i < g.size(); ++i) {
      groups_[i].pattern = g[i].pattern;
      groups_[i].root_ref = static_cast<int>(i);
      if (g[i].pattern == P::kOutEWiseFusable) groups_[i].master_ref = static_cast<int>(i);
    }
  }

  std::vector<Group>& run(int opt_level) {
    if (opt_level == 0) return groups_;
    for (int phase = 0; phase < 2; ++phase) run_phase(phase);
    return groups_;
  }

 private:
  static constexpr int kMaxFusedOps = 256;

  bool check_path_(int src, int sink, const std::function<bool(P, bool)>& fcond) {
    if (!visited_.insert(src).second) return true;
    Group* gn = groups_[src].root();
    if (!fcond(gn->pattern, src == sink)) return false;
    if (src == sink) return true;
    for (auto& [c, p] : g_[src].outputs)
      if (!check_path_(c, sink, fcond)) return false;
    return true;
  }
  bool check_path(int src, int sink, const std::function<bool(P, bool)>& fcond) {
    visited_.clear();
    for (auto& [c, p] : g_[src].outputs)
      if (!check_path_(c, sink, fcond)) return false;
    return true;
  }
  void merge(Group* child, Group* parent) {
    child = child->root();
    parent = parent->root();
    if (child == parent) return;
    parent->num_nodes += child->num_nodes;
    child->parent = parent;
    if (child->master_ref >= 0) {
      MINITVM_ICHECK(parent->master_ref < 0) << "fuse_ops: cannot merge two complex groups";
      parent->master_ref = child->master_ref;
      parent->pattern = combine(child->pattern, parent->pattern);
    }
  }
  void commit_(int src, int sink, Group* target) {
    if (src == sink || !visited_.insert(src).second) return;
    merge(&groups_[src], target);
    for (auto& [c, p] : g_[src].outputs) commit_(c, sink, target);
  }
  void commit(int src, int sink) {
    visited_.clear();
    commit_(src, sink, &groups_[sink]);
  }
  // Nodes of all paths src -> sink (for the size guard).
  int path_size(int src, int sink) {
    std::unordered_set<int> seen;
    std::function<void(int)> walk = [&](int n) {
      if (n == sink || !seen.insert(n).second) return;
      for (auto& [c, p] : g_[n].outputs) walk(c);
    };
    walk(src);
    std::unordered_set<Group*> roots;
    int total = 0;
    for (int n : seen)
      if (roots.insert(groups_[n].root()).second) total += groups_[n].root()->num_nodes;
    return total + groups_[sink].root()->num_nodes;
  }

  void run_phase(int phase) {
    for (size_t nid = 0; nid < g_.size(); ++nid) {
      const DomNode& dn = dom_[nid];
      Group* gn = &groups_[nid];
      if (gn->pattern == P::kOpaque || !dn.parent) continue;
      int sink = dn.parent->gindex;
      if (gn->root() == groups_[sink].root()) continue;
      if (groups_[sink].pattern == P::kTuple) continue;
      auto try_fuse = [&](const std::function<bool(P, bool)>& fcond) {
        if (path_size(static_cast<int>(nid), sink) > kMaxFusedOps) return;
        if (check_path(static_cast<int>(nid), sink, fcond)) commit(static_cast<int>(nid), sink);
      };
      if (gn->pattern == P::kOutEWiseFusable) {
        if (phase != 0) continue;
        if (dn.pattern == P::kElemWise) try_fuse([](P k, bool) { return le(k, P::kBroadcast); });
      } else if (le(gn->pattern, P::kBroadcast)) {
        if (le(dn.pattern, P::kInjective) || dn.pattern == P::kCommReduce)
          try_fuse([](P k, bool is_sink) {
            if (!is_sink) return le(k, P::kInjective);
            return le(k, P::kBroadcast) || k == P::kCommReduce || k == P::kInjective ||
                   k == P::kOutEWiseFusable;
          });
      } else if (gn->pattern == P::kInjective || gn->pattern == P::kTuple) {
        if (phase != 1) continue;
        try_fuse([](P k, bool) { return le(k, P::kInjective); });
      }
    }
  }

  const std::vector<GNode>& g_;
  const std::vector<DomNode>& dom_;
  std::vector<Group> groups_;
  std::unordered_set<int> visited_;
};

std::string shape_key(const TensorType& t) {
  return t.str();
}

}  // namespace

FusedGraph fuse_ops(const Function& f, int opt_level) {
  auto g = forward_graph(f);
  auto dom = post_dom_tree(g);
  Partitioner part(g, dom);
  std::vector<Group>& groups = part.run(opt_level);

  FusedGraph out;
  out.func = f;
  std::unordered_map<Group*, int> group_index;
  std::unordered_map<const ExprNode*, int> gid_of;  // node -> graph index
  for (auto& n : g) gid_of[n.ref.get()] = n.index;
  // Groups in the order of their root (the sink), which is operand-before-user.
  std::vector<std::vector<int>> members;
  std::vector<Group*> roots;
  for (auto& n : g) {
    if (n.ref->kind != ExprKind::Call) continue;
    Group* r = groups[n.index].root();
    if (!group_index.count(r)) {
      group_index[r] = -1;
      roots.push_back(r);
    }
  }
  // Order groups by the index of their root node.
  std::sort(roots.begin(), roots.end(),
            [](Group* a, Group* b) { return a->root_ref < b->root_ref; });
  for (size_t i = 0; i < roots.size(); ++i) group_index[roots[i]] = static_cast<int>(i);
  out.groups.resize(roots.size());
  for (auto& n : g) {
    if (n.ref->kind != ExprKind::Call) continue;
    int gi = group_index.at(groups[n.index].root());
    out.group_of[n.ref.get()] = gi;
  }
  std::map<std::string, std::map<std::string, std::string>>
      names;  // base name -> key -> unique name
  for (size_t gi = 0; gi < roots.size(); ++gi) {
    FusedGroup& fg = out.groups[gi];
    fg.root = g[roots[gi]->root_ref].ref;
    fg.pattern = roots[gi]->pattern;
    // Body operands-first from the root, restricted to the group (the lowering visitor's order).
    std::unordered_set<const ExprNode*> seen;
    std::unordered_map<const ExprNode*, int> input_id;
    std::function<void(const Expr&)> visit = [&](const Expr& e) {
      if (!seen.insert(e.get()).second) return;
      for (auto& a : e->args) {
        auto it = out.group_of.find(a.get());
        if (it != out.group_of.end() && it->second == static_cast<int>(gi)) {
          visit(a);
        } else if (!input_id.count(a.get())) {
          input_id[a.get()] = static_cast<int>(fg.inputs.size());
          fg.inputs.push_back(a);
        }
      }
      fg.nodes.push_back(e);
    };
    visit(fg.root);
    // Master: highest pattern, ties to the later op.
    int best = -1;
    for (auto& e : fg.nodes) {
      int p = static_cast<int>(op_pattern(e->name));
      if (p >= best) {
        best = p;
        fg.master = e;
      }
    }
    // Name and structural key.
    std::string name = "fused";
    std::ostringstream key;
    std::unordered_map<const ExprNode*, int> local;
    for (auto& in : fg.inputs)
      key << "in:" << (in->tuple_typed ? std::string("tuple") : shape_key(in->types[0])) << ";";
    for (auto& e : fg.nodes) {
      name += "_" + e->name;
      key << e->name << "(";
      for (auto& a : e->args) {
        auto it = local.find(a.get());
        key << (it != local.end() ? "%" + std::to_string(it->second)
                                  : "p" + std::to_string(input_id.at(a.get())))
            << ",";
      }
      key << ")" << e->attrs.dump() << ";";
      local[e.get()] = static_cast<int>(local.size());
    }
    fg.key = key.str();
    if (name.size() > 80)
      name = name.substr(0, 80) + "_" + std::to_string(std::hash<std::string>()(name)) + "_";
    std::replace(name.begin(), name.end(), '.', '_');
    auto& by_key = names[name];
    auto it = by_key.find(fg.key);
    if (it == by_key.end()) {
      std::string unique = by_key.empty() ? name : name + "_" + std::to_string(by_key.size());
      it = by_key.emplace(fg.key, unique).first;
    }
    fg.func_name = it->second;
  }
  return out;
}

std::string FusedGraph::str() const {
  std::ostringstream os;
  std::map<const ExprNode*, std::string> names;
  for (auto& p : func.params) names[p.get()] = "%" + p->name;
  int next_const = 0, next = 0;
  auto name_of = [&](const Expr& e) -> std::string {
    auto it = names.find(e.get());
    if (it != names.end()) return it->second;
    if (e->kind == ExprKind::Constant)
      return names[e.get()] = "meta[relay.Constant][" + std::to_string(next_const++) + "]";
    return "?";
  };
  os << "fused graph: " << groups.size() << " primitive functions\n";
  for (const Expr& e : post_order(func.body)) {
    if (e->kind == ExprKind::Var || e->kind == ExprKind::Constant) continue;
    if (e->kind == ExprKind::Call) {
      int gi = group_of.at(e.get());
      if (groups[gi].root != e) continue;
      const FusedGroup& fg = groups[gi];
      std::string id = "%" + std::to_string(next++);
      os << "  " << id << " = " << fg.func_name << "(";
      for (size_t i = 0; i < fg.inputs.size(); ++i) os << (i ? ", " : "") << name_of(fg.inputs[i]);
      os << ") /* ty=" << (e->tuple_typed ? std::string("tuple") : e->types[0].str()) << " */;  //";
      for (auto& n : fg.nodes) os << " " << n->name;
      os << "\n";
      names[e.get()] = id;
    } else {
      std::string id = "%" + std::to_string(next++);
      os << "  " << id << " = ";
      if (e->kind == ExprKind::Tuple) {
        os << "(";
        for (size_t i = 0; i < e->args.size(); ++i) os << (i ? ", " : "") << name_of(e->args[i]);
        os << ");\n";
      } else {
        os << name_of(e->args[0]) << "." << e->index << ";\n";
      }
      names[e.get()] = id;
    }
  }
  os << "  " << name_of(func.body) << "\n";
  return os.str();
}

}  // namespace minitvm::relay::transform
