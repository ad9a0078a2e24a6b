/** \file
 * NumPy `.npy` files (format versions 1.0, 2.0 and 3.0) to and from NDArray, as numpy.save /
 * numpy.load write and read them: C order only, little-endian or byte-order-free element types
 * (float16/32/64, int8/16/32/64, uint8/16/32/64, bool).
 *
 *   runtime::NDArray x = runtime::load_npy("input.npy");
 *   runtime::save_npy("output_0.npy", y);        // y on any device, any strides
 *
 * A malformed file (bad magic, a header that is not a dict literal, an unsupported dtype, Fortran
 * order, a data length that disagrees with the shape) is a RuntimeError naming the file and what
 * is wrong; nothing is allocated before the data length is checked.
 */
#pragma once

#include <string>

#include "minitvm/runtime/ndarray.h"

namespace minitvm::runtime {

/** Parse .npy bytes; `what` names the source in errors (e.g. the file name). */
NDArray load_npy_bytes(const std::string& bytes, const std::string& what = "npy data");
NDArray load_npy(const std::string& path);
/** The .npy bytes (version 1.0, or 2.0 when the header needs it) of `a`. */
std::string save_npy_bytes(const NDArray& a);
void save_npy(const std::string& path, const NDArray& a);
/** The numpy dtype string ("<f4", "|u1", "|b1" ...) of `t`; RuntimeError if npy has none. */
std::string npy_descr(DataType t);

}  // namespace minitvm::runtime
