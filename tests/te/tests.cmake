minitvm_test(test_te LABEL e2e MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_schedule_run.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_schedule_errors.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_lower_golden.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_rfactor.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_bound.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_prefetch.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_nontemporal.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_unroll_disable.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_te_hardening.cc)
add_test(NAME example_api_tour COMMAND example_api_tour)
set_tests_properties(example_api_tour PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "api tour: ok")
