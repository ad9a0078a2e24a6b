minitvm_test(test_ir LABEL unit MODULES ir SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ir.cc)
