minitvm_test(test_emulator LABEL unit MODULES runtime SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_emulator_kernels.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_emulator_checks.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_emulator_rewrite.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_emulator_ptxas.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_emulator_module.cc)
