/** \file
 * Object and Ref: the intrusive reference counting under every IR node, tensor and schedule object.
 *
 * Objects are created with `make_object<T>(...)` and held by `Ref<T>` handles. IR nodes are
 * immutable after construction, so handles are shared freely; identity is the address
 * (`same_as`). Each object carries a `NodeKind` so that `as<T>()` is a compare, not RTTI.
 */
#pragma once

#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "minitvm/ir/node_list.h"

namespace minitvm::ir {

/** Every kind of object, generated from the node lists plus the non-IR objects. */
enum class NodeKind : uint8_t {
#define MINITVM_KIND(N) N,
  MINITVM_FOR_EACH_EXPR(MINITVM_KIND) MINITVM_FOR_EACH_STMT(MINITVM_KIND)
#undef MINITVM_KIND
      IterVar,
  Range,
  Buffer,
  Operation,
  Tensor,
  CommReducer,
  PrimFunc,
  Other,
};

class Object {
 public:
  explicit Object(NodeKind kind) : kind_(kind) {}
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;
  NodeKind kind() const { return kind_; }

  void inc_ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void dec_ref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  NodeKind kind_;
  mutable std::atomic<int32_t> refs_{0};
};

/** Intrusive handle to an immutable object of type T (or a subclass). */
template <typename T>
class Ref {
 public:
  Ref() = default;
  Ref(std::nullptr_t) {}
  explicit Ref(const T* p) : p_(p) {
    if (p_) p_->inc_ref();
  }
  Ref(const Ref& o) : p_(o.p_) {
    if (p_) p_->inc_ref();
  }
  Ref(Ref&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  template <typename U, typename = std::enable_if_t<std::is_base_of_v<T, U>>>
  Ref(const Ref<U>& o) : Ref(o.get()) {}
  ~Ref() {
    if (p_) p_->dec_ref();
  }
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  const T* get() const { return p_; }
  const T* operator->() const { return p_; }
  const T& operator*() const { return *p_; }
  bool defined() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  template <typename U>
  bool same_as(const Ref<U>& o) const {
    return static_cast<const void*>(p_) == static_cast<const void*>(o.get());
  }
  /** Downcast by kind; nullptr when the node is of another kind. */
  template <typename U>
  const U* as() const {
    if (p_ && p_->kind() == U::kKind) return static_cast<const U*>(p_);
    return nullptr;
  }

 private:
  const T* p_ = nullptr;
};

template <typename T, typename... Args>
Ref<T> make_object(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

/** Hash and equality by identity, for maps keyed by IR objects. */
struct RefHash {
  template <typename T>
  size_t operator()(const Ref<T>& r) const {
    return std::hash<const void*>()(r.get());
  }
};
struct RefEq {
  template <typename T>
  bool operator()(const Ref<T>& a, const Ref<T>& b) const {
    return a.same_as(b);
  }
};

}  // namespace minitvm::ir
