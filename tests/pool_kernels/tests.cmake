# Pool kernels (topi/pool.h, CompiledPoolExecutor): the PyTorch golden suite through compiled llvm
# kernels, compute/schedule unit tests against the reference executor.
minitvm_test(test_pool_kernels LABEL unit MODULES frontend SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_golden_llvm.cc)
