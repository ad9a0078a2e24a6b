// TVM v0.6 graph JSON reader: parse_graph_json checks every field and names the node and the key
// of what is missing or malformed (see runtime/graph/graph_internal.h).
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "minitvm/runtime/graph_executor.h"
#include "minitvm/support/error.h"
#include "runtime/graph/graph_internal.h"

namespace minitvm::runtime {

namespace {

using ojson = nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& msg) {
  throw RuntimeError("graph JSON: " + msg);
}

std::string node_label(size_t i, const std::string& name) {
  return "node " + std::to_string(i) + (name.empty() ? std::string() : " '" + name + "'");
}

int64_t as_int(const ojson& v, const std::string& where) {
  if (!v.is_number_integer()) fail(where + " must be an integer, got " + v.dump());
  return v.get<int64_t>();
}

std::string as_str(const ojson& v, const std::string& where) {
  if (!v.is_string()) fail(where + " must be a string, got " + v.dump());
  return v.get<std::string>();
}

const ojson& as_array(const ojson& v, const std::string& where) {
  if (!v.is_array()) fail(where + " must be an array, got " + v.dump());
  return v;
}

std::vector<int64_t> int_list(const ojson& v, const std::string& where) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < as_array(v, where).size(); ++i)
    out.push_back(as_int(v[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

GraphEntryRef parse_entry(const ojson& e, const std::string& where) {
  as_array(e, where);
  if (e.size() != 2 && e.size() != 3)
    fail(where + " must be [node, index] or [node, index, version], got " + e.dump());
  GraphEntryRef r;
  r.node = as_int(e[0], where + "[0]");
  r.index = as_int(e[1], where + "[1]");
  if (e.size() == 3) r.version = as_int(e[2], where + "[2]");
  return r;
}

// A typed graph attr ["list_int", [...]] etc.; returns the payload after checking the type tag.
const ojson& typed_attr(const ojson& v, const std::string& key, const std::string& type) {
  const std::string where = "attrs." + key;
  as_array(v, where);
  if (v.size() != 2)
    fail(where + " must be [\"" + type + "\", [...]], got " + v.dump().substr(0, 80));
  if (as_str(v[0], where + "[0]") != type)
    fail(where + " has type \"" + v[0].get<std::string>() + "\", expected \"" + type + "\"");
  return as_array(v[1], where + "[1]");
}

// A zero-offset view of `base`'s memory with another shape and dtype (TVM's CreateView), made
// through DLPack so that it needs nothing beyond NDArray's public interface; the view keeps
// `base` alive.
}  // namespace

ParsedGraph parse_graph_json(const std::string& text) {
  ojson root;
  try {
    root = ojson::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(std::string("not valid JSON: ") + e.what());
  }
  if (!root.is_object()) fail("the top level must be an object");
  ParsedGraph g;
  // v0.6's reader: a bitmask of the five required keys; a `metadata` key ends the object.
  int seen = 0;
  const ojson *nodes = nullptr, *arg_nodes = nullptr, *heads = nullptr, *attrs = nullptr,
              *row_ptr = nullptr;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string& key = it.key();
    if (key == "nodes")
      nodes = &it.value(), seen |= 1;
    else if (key == "arg_nodes")
      arg_nodes = &it.value(), seen |= 2;
    else if (key == "heads")
      heads = &it.value(), seen |= 4;
    else if (key == "attrs")
      attrs = &it.value(), seen |= 8;
    else if (key == "node_row_ptr")
      row_ptr = &it.value(), seen |= 16;
    else if (key == "metadata")
      break;
    else
      fail("key '" + key + "' is not supported");
  }
  const char* required[] = {"nodes", "arg_nodes", "heads", "attrs", "node_row_ptr"};
  for (int b = 0; b < 5; ++b)
    if (!(seen & (1 << b))) fail(std::string("missing required key '") + required[b] + "'");

  // nodes
  as_array(*nodes, "nodes");
  for (size_t i = 0; i < nodes->size(); ++i) {
    const ojson& n = (*nodes)[i];
    const std::string where = "nodes[" + std::to_string(i) + "]";
    if (!n.is_object()) fail(where + " must be an object");
    GraphNode node;
    bool has_op = false, has_name = false, has_inputs = false;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string& key = it.key();
      if (key == "op")
        node.op = as_str(it.value(), where + ".op"), has_op = true;
      else if (key == "name")
        node.name = as_str(it.value(), where + ".name"), has_name = true;
      else if (key == "inputs") {
        has_inputs = true;
        const ojson& ins = as_array(it.value(), where + ".inputs");
        for (size_t k = 0; k < ins.size(); ++k)
          node.inputs.push_back(parse_entry(ins[k], where + ".inputs[" + std::to_string(k) + "]"));
      } else if (key == "attr" || key == "attrs") {
        if (!it.value().is_object()) fail(where + "." + key + " must be an object");
        for (auto a = it.value().begin(); a != it.value().end(); ++a)
          node.attrs[a.key()] = as_str(a.value(), where + "." + key + "." + a.key());
      } else if (key == "control_deps") {
        int_list(it.value(), where + ".control_deps");
      } else {
        fail(where + " (" + node_label(i, node.name) + "): key '" + key + "' is not supported");
      }
    }
    if (!has_op) fail(where + ": missing key 'op'");
    if (!has_name) fail(where + ": missing key 'name'");
    if (!has_inputs) fail(where + " (" + node_label(i, node.name) + "): missing key 'inputs'");
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const GraphEntryRef& e = node.inputs[k];
      if (e.node < 0 || e.node >= static_cast<int64_t>(i))
        fail(node_label(i, node.name) + ": input " + std::to_string(k) + " refers to node " +
             std::to_string(e.node) + ", which is not an earlier node");
    }
    node.num_outputs = 1;
    if (node.op != "null") {
      if (auto a = node.attrs.find("num_outputs"); a != node.attrs.end()) {
        try {
          size_t pos = 0;
          node.num_outputs = std::stoll(a->second, &pos);
          if (pos != a->second.size()) throw std::invalid_argument("trailing characters");
        } catch (const std::exception&) {
          fail(node_label(i, node.name) + ": attr num_outputs = \"" + a->second +
               "\" is not an integer");
        }
        if (node.num_outputs < 1)
          fail(node_label(i, node.name) + ": num_outputs = " + a->second + " (must be at least 1)");
      }
    } else if (!node.inputs.empty()) {
      fail(node_label(i, node.name) + ": a null (input) node has inputs");
    }
    g.nodes.push_back(std::move(node));
  }
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (size_t k = 0; k < g.nodes[i].inputs.size(); ++k) {
      const GraphEntryRef& e = g.nodes[i].inputs[k];
      const GraphNode& src = g.nodes[static_cast<size_t>(e.node)];
      if (e.index < 0 || e.index >= src.num_outputs)
        fail(node_label(i, g.nodes[i].name) + ": input " + std::to_string(k) + " reads output " +
             std::to_string(e.index) + " of " + node_label(static_cast<size_t>(e.node), src.name) +
             ", which has " + std::to_string(src.num_outputs));
    }

  // arg_nodes, heads, node_row_ptr
  for (int64_t a : int_list(*arg_nodes, "arg_nodes")) {
    if (a < 0 || a >= static_cast<int64_t>(g.nodes.size()))
      fail("arg_nodes: node " + std::to_string(a) + " does not exist (" +
           std::to_string(g.nodes.size()) + " nodes)");
    if (g.nodes[static_cast<size_t>(a)].op != "null")
      fail(
          "arg_nodes: " + node_label(static_cast<size_t>(a), g.nodes[static_cast<size_t>(a)].name) +
          " is not a null (input) node");
    g.arg_nodes.push_back(a);
  }
  as_array(*heads, "heads");
  for (size_t k = 0; k < heads->size(); ++k) {
    GraphEntryRef e = parse_entry((*heads)[k], "heads[" + std::to_string(k) + "]");
    if (e.node < 0 || e.node >= static_cast<int64_t>(g.nodes.size()) ||
        e.index >= g.nodes[static_cast<size_t>(e.node)].num_outputs || e.index < 0)
      fail("heads[" + std::to_string(k) + "] = [" + std::to_string(e.node) + ", " +
           std::to_string(e.index) + "] is not an output of the graph's nodes");
    g.heads.push_back(e);
  }
  g.node_row_ptr = int_list(*row_ptr, "node_row_ptr");
  if (g.node_row_ptr.size() != g.nodes.size() + 1)
    fail("node_row_ptr has " + std::to_string(g.node_row_ptr.size()) + " elements, expected " +
         std::to_string(g.nodes.size() + 1) + " (nodes + 1)");
  if (g.node_row_ptr[0] != 0) fail("node_row_ptr[0] must be 0");
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.node_row_ptr[i + 1] - g.node_row_ptr[i] != g.nodes[i].num_outputs)
      fail("node_row_ptr[" + std::to_string(i + 1) + "] - node_row_ptr[" + std::to_string(i) +
           "] = " + std::to_string(g.node_row_ptr[i + 1] - g.node_row_ptr[i]) + " but " +
           node_label(i, g.nodes[i].name) + " has " + std::to_string(g.nodes[i].num_outputs) +
           " output(s)");
  const size_t num_entries = static_cast<size_t>(g.node_row_ptr.back());

  // attrs
  if (!attrs->is_object()) fail("attrs must be an object");
  bool has_shape = false, has_dtype = false, has_sid = false;
  for (auto it = attrs->begin(); it != attrs->end(); ++it) {
    const std::string& key = it.key();
    if (key == "dltype") {
      const ojson& l = typed_attr(it.value(), key, "list_str");
      for (size_t k = 0; k < l.size(); ++k) {
        const std::string s = as_str(l[k], "attrs.dltype[" + std::to_string(k) + "]");
        try {
          g.dtypes.push_back(DataType::parse(s));
        } catch (const CompileError&) {
          fail("attrs.dltype[" + std::to_string(k) + "] = \"" + s + "\" is not a data type");
        }
      }
      has_dtype = true;
    } else if (key == "storage_id") {
      g.storage_ids = int_list(typed_attr(it.value(), key, "list_int"), "attrs.storage_id");
      has_sid = true;
    } else if (key == "shape") {
      const ojson& l = typed_attr(it.value(), key, "list_shape");
      for (size_t k = 0; k < l.size(); ++k)
        g.shapes.push_back(int_list(l[k], "attrs.shape[" + std::to_string(k) + "]"));
      has_shape = true;
    } else if (key == "device_index") {
      g.device_index = int_list(typed_attr(it.value(), key, "list_int"), "attrs.device_index");
    } else {
      // v0.6 skips other list_int and size_t attrs and rejects the rest.
      const ojson& v = it.value();
      if (!v.is_array() || v.size() != 2 || !v[0].is_string() ||
          (v[0] != "list_int" && v[0] != "size_t"))
        fail("cannot skip graph attr '" + key +
             "' (only list_int and size_t attrs can be skipped)");
    }
  }
  if (!has_dtype) fail("attrs: missing 'dltype'");
  if (!has_sid) fail("attrs: missing 'storage_id'");
  if (!has_shape) fail("attrs: missing 'shape'");
  auto check_len = [&](size_t n, const char* what) {
    if (n != num_entries)
      fail(std::string("attrs.") + what + " has " + std::to_string(n) + " entries, the graph has " +
           std::to_string(num_entries) + " (node_row_ptr.back())");
  };
  check_len(g.dtypes.size(), "dltype");
  check_len(g.storage_ids.size(), "storage_id");
  check_len(g.shapes.size(), "shape");
  if (!g.device_index.empty()) check_len(g.device_index.size(), "device_index");
  for (size_t e = 0; e < num_entries; ++e) {
    if (g.storage_ids[e] < 0) fail("attrs.storage_id[" + std::to_string(e) + "] is negative");
    for (int64_t d : g.shapes[e])
      if (d < 0) fail("attrs.shape[" + std::to_string(e) + "] has a negative dimension");
  }
  return g;
}

}  // namespace minitvm::runtime
