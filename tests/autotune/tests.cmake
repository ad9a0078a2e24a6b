# Records, spaces, dispatch and TopHub. topi is linked for TVM's CUDA template spaces (topi/template_spaces.h),
# which the record checks and the parity tests rebuild.
minitvm_test(test_autotune LABEL unit MODULES topi LIBS minitvm_devtools SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_space.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_records.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_dispatch.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_parity.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_malformed.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_inspect.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_record_check.cc)

# The libFuzzer target of the record loader is tests/fuzz/fuzz_records.cc (tests/fuzz/tests.cmake).

# Areas of this module in sub-folders.
include(${CMAKE_CURRENT_LIST_DIR}/tuner/tests.cmake)
