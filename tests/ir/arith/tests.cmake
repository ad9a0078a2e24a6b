# Arithmetic analysis and simplifier tests (ir module only).
minitvm_test(test_arith LABEL unit MODULES ir SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_arith.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_arith_random.cc)
