# Graph executor, params bytes and the profiler: hand-written TVM v0.6 graphs whose kernels are
# built with build(), against naive loops.
minitvm_test(test_graph LABEL unit MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_graph_executor.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_profiler.cc)
