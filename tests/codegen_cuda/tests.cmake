minitvm_test(test_codegen_cuda LABEL unit MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/kernels.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_codegen_text.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_compile_run.cc)
