# The main job: `minitvm demo` must keep passing all its parts.
add_test(NAME minitvm_demo COMMAND minitvm_cli demo)
set_tests_properties(minitvm_demo PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "demo: all parts ok" TIMEOUT 600)

# What the command line relies on: `tophub check` on small logs and resuming a cut tuning log.
minitvm_test(test_tools LABEL e2e LIBS minitvm SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_tune_log.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_tophub_check.cc)
