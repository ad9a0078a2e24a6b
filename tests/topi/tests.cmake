# topi tests: computes, CPU and CUDA schedule templates, the x86 NCHWc template and layer builds,
# on the topi module and its dependencies.
minitvm_test(test_topi LABEL unit MODULES topi SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_compute.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cpu_schedule.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_templates.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_conv2d_nchwc.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_layer_validation.cc)
