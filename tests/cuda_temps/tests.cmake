# tests/cuda_temps: global temporaries passed between CUDA kernels (split_host_device, emulator
# and cuda modules), built for "cuda -emulate" against naive references.
minitvm_test(test_cuda_temps LABEL unit MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_temps.cc)
minitvm_test(test_cuda_temps_gpu LABEL gpu MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_temps_gpu.cc)

# Winograd through the topi CUDA templates. The topi operator objects (minitvm_topi_ops) are
# defined by tests/topi/tests.cmake, which is included after this file, so the test is added at
# the end of the directory, and only when that library exists.
set(_minitvm_cuda_temps_dir ${CMAKE_CURRENT_LIST_DIR})
function(_minitvm_cuda_temps_winograd)
  if(TARGET minitvm_topi_ops)
    minitvm_test(test_cuda_temps_winograd LABEL unit MODULES autotune SOURCES
      ${_minitvm_cuda_temps_dir}/test_winograd_temps.cc)
    if(TARGET test_cuda_temps_winograd)
      target_sources(test_cuda_temps_winograd PRIVATE $<TARGET_OBJECTS:minitvm_topi_ops>)
    endif()
  endif()
endfunction()
cmake_language(DEFER CALL _minitvm_cuda_temps_winograd)
