# Pooling frontend: parameter planning/validation, ONNX attributes, the reference executor and the
# PyTorch golden conformance suite (tests/data/pool/<op>.jsonl).
minitvm_test(test_frontend LABEL unit MODULES frontend SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_golden.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_plan.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_onnx_attrs.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_pool_reference.cc)
