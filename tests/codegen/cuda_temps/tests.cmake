# tests/codegen/cuda_temps: global temporaries passed between CUDA kernels (split_host_device, emulator
# and cuda modules), built for "cuda -emulate" against naive references.
minitvm_test(test_cuda_temps LABEL unit MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_temps.cc)
minitvm_test(test_cuda_temps_gpu LABEL gpu MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_temps_gpu.cc)

# Winograd through the topi CUDA templates.
minitvm_test(test_cuda_temps_winograd LABEL unit MODULES topi SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_winograd_temps.cc)
