# LLVM CPU code generator: hand-built PrimFuncs compiled with the JIT, checked against C++.
minitvm_test(test_codegen_llvm LABEL unit MODULES codegen SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_codegen_basic.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_codegen_math.cc)
# The parallel-loop test calls back into the test binary by name from JIT code.
set_target_properties(test_codegen_llvm PROPERTIES ENABLE_EXPORTS ON)
