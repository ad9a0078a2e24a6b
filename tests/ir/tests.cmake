minitvm_test(test_ir LABEL unit MODULES ir SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ir.cc)

# Areas of this module in sub-folders.
include(${CMAKE_CURRENT_LIST_DIR}/arith/tests.cmake)
