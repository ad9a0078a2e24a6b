# Runtime tests: everything that runs without a GPU (NDArray, DLPack, PackedFunc checks, LLVM JIT,
# thread pool, time_evaluator, NVRTC/ptxas when the toolkit is installed, CUDA module files), and a
# separate `gpu`-labelled binary whose tests skip with a reason when there is no CUDA driver.
minitvm_test(test_runtime LABEL unit MODULES runtime SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_ndarray.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_npy.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_module.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_jit.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_thread_pool.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_time_evaluator.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_compile.cc)
target_include_directories(test_runtime SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(test_runtime PRIVATE ${LLVM_DEFINITIONS})

minitvm_test(test_runtime_gpu LABEL gpu MODULES runtime SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_gpu.cc)

# Areas of this module in sub-folders.
include(${CMAKE_CURRENT_LIST_DIR}/emulator/tests.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/graph/tests.cmake)
