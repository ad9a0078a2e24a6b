minitvm_test(test_codegen_cuda LABEL unit MODULES codegen SOURCES
  ${PROJECT_SOURCE_DIR}/tests/common/ir_kernels.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_codegen_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_compile_run.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_target_checks.cc)
minitvm_test(test_codegen_cuda_e2e LABEL unit MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_end_to_end.cc)
