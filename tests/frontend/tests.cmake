# Pooling frontend: parameter planning/validation, ONNX attributes, the reference executor, the
# PyTorch golden conformance suite (tests/data/pool/<op>.jsonl) and ONNX's pooling node tests
# (Debian libonnx-testdata; skipped with a message when absent or when built without ONNX).
if(MINITVM_POOL_LOCAL_ONNX)  # local opt-in until the top CMakeLists.txt includes cmake/onnx.cmake
  include(${PROJECT_SOURCE_DIR}/cmake/onnx.cmake)
endif()
minitvm_test(test_frontend LABEL unit MODULES frontend LIBS minitvm_devtools SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_golden.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_onnx_attrs.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_reference.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_onnx_loader.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_frontend_limits.cc)

# Areas of this module in sub-folders.
include(${CMAKE_CURRENT_LIST_DIR}/onnx_ops/tests.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/pool_tune/tests.cmake)
