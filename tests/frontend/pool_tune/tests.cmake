# Pool tuning templates (src/frontend/pool_tune_template.cc) and the shipped llvm pool configs.
minitvm_test(test_pool_tune LABEL unit MODULES frontend SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_tune.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_fuzz.cc)
# examples/maxpool_frontend.cpp end to end (built with the examples).
if(MINITVM_BUILD_EXAMPLES AND EXISTS ${PROJECT_SOURCE_DIR}/examples/maxpool_frontend.cpp)
  add_test(NAME example_maxpool_frontend COMMAND example_maxpool_frontend)
  set_tests_properties(example_maxpool_frontend PROPERTIES LABELS unit PASS_REGULAR_EXPRESSION "all checks passed")
endif()
