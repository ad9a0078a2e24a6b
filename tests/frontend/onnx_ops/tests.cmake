# ONNX tensor ops (frontend/onnx_ops.cc): ONNX's Conv / Gemm / Relu / Add / Flatten /
# BatchNormalization node tests from Debian's libonnx-testdata, run through the model loader with
# the ops compiled for llvm (gtest; each case skips with a message when ONNX support or the
# test data is absent), plus the same directories through `minitvm onnx-test` when the CLI exists.
minitvm_test(test_onnx_ops LABEL unit MODULES frontend SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_onnx_ops.cc)

set(_onnx_ops_pattern "test_conv_with_*;test_gemm_*;test_relu;test_add;test_add_bcast;test_add_uint8;test_flatten_*;test_batchnorm_epsilon;test_batchnorm_example")
set(_onnx_ops_dirs)
foreach(p IN LISTS _onnx_ops_pattern)
  file(GLOB _d LIST_DIRECTORIES true /usr/share/libonnx-testdata/data/node/${p})
  list(APPEND _onnx_ops_dirs ${_d})
endforeach()
if(_onnx_ops_dirs AND MINITVM_HAVE_ONNX AND TARGET minitvm_cli)
  add_test(NAME onnx_ops_node_tests COMMAND minitvm_cli onnx-test ${_onnx_ops_dirs})
  set_tests_properties(onnx_ops_node_tests PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION " 0 failed")
else()
  message(STATUS "minitvm: libonnx-testdata (or ONNX support) not found: ONNX conv/gemm node tests via the CLI skipped")
endif()
