# topi tests: computes, CPU and CUDA schedule templates, the x86 NCHWc template and layer builds,
# on the topi module and its dependencies.
minitvm_test(test_topi LABEL unit MODULES topi SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_compute.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cpu_schedule.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_templates.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_conv2d_nchwc.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_winograd_nchwc.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_layer_validation.cc)

# Areas of this module in sub-folders.
include(${CMAKE_CURRENT_LIST_DIR}/pool_cuda/tests.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/pool_kernels/tests.cmake)
