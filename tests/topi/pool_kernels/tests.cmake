# Pool kernels (topi/pool.h, CompiledPoolExecutor): the PyTorch golden suite through compiled llvm
# kernels, compute/schedule unit tests against the reference executor.
minitvm_test(test_pool_kernels LABEL unit MODULES frontend LIBS minitvm_devtools SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_golden_llvm.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_validation.cc)
# Every 12th golden case on "cuda -emulate" (the CUDA schedules, run by the emulator).
minitvm_test(test_pool_kernels_emulate LABEL unit MODULES frontend LIBS minitvm_devtools SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_golden_emulate.cc)

# ONNX's own pooling node tests (Debian libonnx-testdata) through `minitvm onnx-test` on llvm.
file(GLOB _onnx_pool_dirs LIST_DIRECTORIES true /usr/share/libonnx-testdata/data/node/test_*pool*)
if(_onnx_pool_dirs AND MINITVM_HAVE_ONNX AND TARGET minitvm_cli)
  add_test(NAME pool_onnx_node_tests COMMAND minitvm_cli onnx-test ${_onnx_pool_dirs})
  set_tests_properties(pool_onnx_node_tests PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION " 0 failed")
else()
  message(STATUS "minitvm: libonnx-testdata (or ONNX support) not found: ONNX pooling node tests skipped")
endif()
