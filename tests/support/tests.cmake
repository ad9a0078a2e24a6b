minitvm_test(test_support LABEL unit MODULES support SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_error.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_target.cc)
