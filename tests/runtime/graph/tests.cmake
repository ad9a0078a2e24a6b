# Graph executor, params bytes, profiler, export_library/load: hand-written TVM v0.6 graphs whose
# kernels are built with build(), against naive loops. minitvm_graph_lite_run links only
# minitvm_runtime_lite and runs an exported file (driven by test_graph). The gpu binary skips
# without a CUDA GPU.
add_executable(minitvm_graph_lite_run ${CMAKE_CURRENT_LIST_DIR}/lite_run.cc)
target_link_libraries(minitvm_graph_lite_run PRIVATE minitvm_runtime_lite)

minitvm_test(test_graph LABEL unit MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_graph_executor.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_profiler.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_export.cc)
add_dependencies(test_graph minitvm_graph_lite_run)
target_compile_definitions(test_graph PRIVATE MINITVM_GRAPH_LITE_RUN="$<TARGET_FILE:minitvm_graph_lite_run>")

minitvm_test(test_graph_gpu LABEL gpu MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_graph_gpu.cc)
