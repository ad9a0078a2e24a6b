# TopHub sweep: a representative subset of the seed logs' workloads checked with our CUDA templates
# (build, NVRTC, ptxas sm_90, emulated run against naive loops). The full sweep is
# `minitvm tophub check tophub/seed/*.log --emulate` (docs/TOPI.md).
minitvm_test(test_topi_sweep LABEL e2e MODULES topi LIBS minitvm_devtools SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_sweep_workloads.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_sweep_subset.cc)
