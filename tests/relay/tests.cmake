# relay (graph level) tests. frontend is linked because the topi module's pooling part uses it.
minitvm_test(test_relay LABEL unit MODULES relay frontend SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_ir.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_passes.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_zoo.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_build.cc)
