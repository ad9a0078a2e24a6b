# tests/codegen/cuda_schedules: te schedules built for "cuda -emulate" (unit) and for a real GPU with "cuda" (gpu).
minitvm_test(test_cuda_emulate LABEL unit MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cases.cc
  ${CMAKE_CURRENT_LIST_DIR}/check.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_emulate.cc)
minitvm_test(test_cuda_gpu LABEL gpu MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/cases.cc
  ${CMAKE_CURRENT_LIST_DIR}/check.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_gpu.cc)

# The CUDA examples run as tests (on the emulator here, on the GPU where there is one).
if(MINITVM_BUILD_EXAMPLES)
  foreach(ex cuda_vector_add emit_cuda)
    if(EXISTS ${PROJECT_SOURCE_DIR}/examples/${ex}.cpp)
      add_test(NAME example_${ex} COMMAND $<TARGET_FILE:example_${ex}>)
      set_tests_properties(example_${ex} PROPERTIES LABELS unit TIMEOUT 120)
    endif()
  endforeach()
endif()
