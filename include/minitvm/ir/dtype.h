/** \file
 * DataType: the scalar or vector type of an expression or tensor element, as in TVM/DLPack:
 * a type code (int, uint, float, bfloat, handle), the bit width and the number of vector lanes.
 */
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace minitvm {

class DataType {
 public:
  /** Type codes; the numeric values are DLPack's (kDLInt=0, kDLUInt=1, kDLFloat=2, kDLBfloat=4). */
  enum class Code : uint8_t { Int = 0, UInt = 1, Float = 2, Handle = 3, BFloat = 4 };

  constexpr DataType() : code_(Code::Handle), bits_(0), lanes_(0) {}
  constexpr DataType(Code code, int bits, int lanes = 1)
      : code_(code), bits_(static_cast<uint8_t>(bits)), lanes_(static_cast<uint16_t>(lanes)) {}

  static constexpr DataType Int(int bits, int lanes = 1) { return {Code::Int, bits, lanes}; }
  static constexpr DataType UInt(int bits, int lanes = 1) { return {Code::UInt, bits, lanes}; }
  static constexpr DataType Float(int bits, int lanes = 1) { return {Code::Float, bits, lanes}; }
  static constexpr DataType BFloat(int bits = 16, int lanes = 1) {
    return {Code::BFloat, bits, lanes};
  }
  static constexpr DataType Bool(int lanes = 1) { return {Code::UInt, 1, lanes}; }
  static constexpr DataType Handle() { return {Code::Handle, 64, 1}; }
  static constexpr DataType Void() { return {Code::Handle, 0, 0}; }

  constexpr Code code() const { return code_; }
  constexpr int bits() const { return bits_; }
  constexpr int lanes() const { return lanes_; }
  /** Size of one element (all lanes) in bytes, rounding bool up to one byte per lane. */
  constexpr int bytes() const { return ((bits_ + 7) / 8) * lanes_; }

  constexpr bool is_int() const { return code_ == Code::Int; }
  constexpr bool is_uint() const { return code_ == Code::UInt && bits_ != 1; }
  constexpr bool is_bool() const { return code_ == Code::UInt && bits_ == 1; }
  constexpr bool is_float() const { return code_ == Code::Float; }
  constexpr bool is_bfloat() const { return code_ == Code::BFloat; }
  /** float or bfloat: types with inf/nan and float arithmetic. */
  constexpr bool is_floating() const { return code_ == Code::Float || code_ == Code::BFloat; }
  constexpr bool is_handle() const { return code_ == Code::Handle && bits_ != 0; }
  constexpr bool is_void() const { return code_ == Code::Handle && bits_ == 0; }
  /** int, uint or bool */
  constexpr bool is_integral() const { return code_ == Code::Int || code_ == Code::UInt; }
  constexpr bool is_scalar() const { return lanes_ == 1; }
  constexpr bool is_vector() const { return lanes_ > 1; }

  constexpr DataType with_lanes(int lanes) const { return {code_, bits_, lanes}; }
  constexpr DataType with_bits(int bits) const { return {code_, bits, lanes_}; }
  constexpr DataType element_of() const { return with_lanes(1); }

  constexpr bool operator==(const DataType& o) const {
    return code_ == o.code_ && bits_ == o.bits_ && lanes_ == o.lanes_;
  }
  constexpr bool operator!=(const DataType& o) const { return !(*this == o); }

  /** TVM spelling: "float32", "int64", "uint8", "bool", "float32x4", "handle". */
  std::string str() const;
  /** Parse the TVM spelling; throws CompileError on an unknown name. */
  static DataType parse(const std::string& s);

 private:
  Code code_;
  uint8_t bits_;
  uint16_t lanes_;
};

std::ostream& operator<<(std::ostream& os, const DataType& t);

/** Where an NDArray lives. Device types use DLPack's numbering (kDLCPU=1, kDLCUDA=2). */
struct Device {
  enum class Type : int32_t { CPU = 1, CUDA = 2 };
  Type type = Type::CPU;
  int id = 0;

  static Device cpu(int id = 0) { return {Type::CPU, id}; }
  static Device cuda(int id = 0) { return {Type::CUDA, id}; }
  bool is_cpu() const { return type == Type::CPU; }
  bool is_cuda() const { return type == Type::CUDA; }
  bool operator==(const Device& o) const { return type == o.type && id == o.id; }
  bool operator!=(const Device& o) const { return !(*this == o); }
  std::string str() const;
};

std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace minitvm
