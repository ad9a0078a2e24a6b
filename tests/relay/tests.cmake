# relay (graph level) tests.
minitvm_test(test_relay LABEL unit MODULES relay SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_ir.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_passes.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_zoo.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_build.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_alter_layout.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_winograd.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_extract_tasks.cc)

# relay::build through runtime::GraphExecutor / export_library, and the ONNX importer
# (relay::frontend::from_onnx; ONNX node tests from Debian's libonnx-testdata when installed).
minitvm_test(test_relay_e2e LABEL unit MODULES relay LIBS minitvm_devtools SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_executor_e2e.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_onnx_import.cc)

# relay::build for "cuda" run on a CUDA device (skips without one).
minitvm_test(test_relay_gpu LABEL gpu MODULES relay SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_relay_gpu.cc)
