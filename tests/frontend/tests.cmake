# Pooling frontend: parameter planning/validation, the reference executor and the PyTorch golden
# conformance suite (tests/data/pool/*.jsonl).
minitvm_test(test_frontend LABEL unit MODULES frontend SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_golden.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_plan.cc)
