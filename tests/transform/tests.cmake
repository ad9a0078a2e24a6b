# transform: per-pass before/expected tests, storage_flatten through lower(), and the device passes
# (split_host_device, thread_sync) on hand-built kernels.
minitvm_test(test_transform LABEL unit MODULES transform SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_passes.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_device_passes.cc
  ${PROJECT_SOURCE_DIR}/tests/common/ir_kernels.cc)
