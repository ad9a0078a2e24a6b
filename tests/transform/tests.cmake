minitvm_test(test_transform LABEL unit MODULES transform SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_passes.cc)
