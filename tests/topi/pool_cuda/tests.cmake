# CUDA pool schedule template (topi/pool_schedule_cuda.cc): knobs/fallback/dispatch, NVRTC + ptxas
# sm_90 acceptance of several plans, non-default configs, float16 and bfloat16 on the CUDA emulator against
# the reference executor.
minitvm_test(test_pool_cuda LABEL unit MODULES frontend SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_cuda.cc)
