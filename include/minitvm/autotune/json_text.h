/** \file
 * Text forms of JSON values as CPython 3 produces them, so that records we write are the bytes TVM
 * writes (`json.dumps` with its default ", " and ": " separators and ensure_ascii) and workloads
 * print as TVM prints them (Python `repr` of nested tuples).
 */
#pragma once

#include <string>

#include "minitvm/autotune/space.h"

namespace minitvm::autotune {

/** `json.dumps(v)`: separators ", " / ": ", non-ASCII escaped as \uXXXX, floats as `repr(float)`,
 *  non-finite floats as NaN / Infinity / -Infinity (as Python writes them). */
std::string py_json_dumps(const Json& v);

/** `repr(float(d))`: shortest round-trip digits, e.g. `5.69732536806342e-05`, `1.0`, `1e+16`. */
std::string py_float_repr(double d);

/** Python repr of the value after TVM's `clean_json_to_python`: arrays become tuples when
 *  `arrays_as_tuples` (else lists), strings single-quoted, null `None`, booleans `True`/`False`.
 *  Example: `('conv2d', (1, 3, 224, 224, 'float32'), (2, 2))`. */
std::string py_repr(const Json& v, bool arrays_as_tuples = true);

}  // namespace minitvm::autotune
