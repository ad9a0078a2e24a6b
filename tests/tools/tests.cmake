# The main job: `minitvm demo` must keep passing all its parts.
add_test(NAME minitvm_demo COMMAND minitvm_cli demo)
set_tests_properties(minitvm_demo PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "demo: all parts ok" TIMEOUT 600)

# The command line as users run it (subprocesses of the built `minitvm` and benchmarks), the tuning
# log's resume, `tophub check` on small logs and the TopHub folder lookup.
minitvm_test(test_tools LABEL e2e LIBS minitvm_devtools minitvm SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_cli.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_tune_log.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_tophub_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_tophub_root.cc)
add_dependencies(test_tools minitvm_cli)
set(_bench_paths "")
if(MINITVM_BUILD_BENCH)
  foreach(b minitvm-bench-matmul minitvm-bench-pool minitvm-bench-conv2d
            minitvm-bench-gpu-matmul minitvm-bench-gpu-conv2d minitvm-bench-gpu-pool)
    list(APPEND _bench_paths "\"$<TARGET_FILE:${b}>\"")
    add_dependencies(test_tools ${b})
  endforeach()
endif()
list(JOIN _bench_paths "," _bench_paths)
target_compile_definitions(test_tools PRIVATE
  MINITVM_CLI_PATH="$<TARGET_FILE:minitvm_cli>"
  MINITVM_BENCH_PATHS=${_bench_paths})

# `minitvm compile/run/profile` on small ONNX models written in the test (and a zoo network for cuda).
minitvm_test(test_network_cli LABEL e2e MODULES relay frontend SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_network_cli.cc)
add_dependencies(test_network_cli minitvm_cli)
target_compile_definitions(test_network_cli PRIVATE MINITVM_CLI_PATH="$<TARGET_FILE:minitvm_cli>")

# Areas of this module in sub-folders.
include(${CMAKE_CURRENT_LIST_DIR}/sweep/tests.cmake)
