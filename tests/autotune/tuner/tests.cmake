# The tuner against topi's matmul.llvm template (autotune itself registers no operator).
minitvm_test(test_tuner LABEL unit MODULES topi LIBS minitvm_devtools SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_tuners.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_log.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_measure.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_scheduler.cc)
# Templates registered from topi (CUDA, pool, x86 conv2d) and the TVM-style template API.
minitvm_test(test_tuner_templates LABEL unit MODULES frontend SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_templates.cc)
