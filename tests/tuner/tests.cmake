minitvm_test(test_tuner LABEL unit MODULES autotune SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_tuners.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_log.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_measure.cc)
