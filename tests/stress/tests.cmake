# Kernel churn (tests/stress/test_stress.cc): thousands of distinct kernels built and freed in one
# process with bounded RSS growth. Not run under sanitizers (scripts/sanitize.sh excludes the
# label): their allocators keep freed memory in quarantine, so RSS says nothing there.
add_executable(test_stress ${CMAKE_CURRENT_LIST_DIR}/test_stress.cc)
minitvm_link_modules(test_stress codegen)
target_include_directories(test_stress PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
target_link_libraries(test_stress PRIVATE GTest::gtest_main)
add_test(NAME stress_llvm_kernels COMMAND test_stress --gtest_filter=Stress.LlvmKernelChurn)
set_tests_properties(stress_llvm_kernels PROPERTIES LABELS stress TIMEOUT 900)
add_test(NAME stress_emulated_kernels COMMAND test_stress --gtest_filter=Stress.EmulatedKernelChurn)
# The emulator's compile cache holds its objects weakly: a freed module unloads its kernels, so RSS
# stays bounded (it grew ~23 KiB per distinct kernel while every object stayed loaded).
set_tests_properties(stress_emulated_kernels PROPERTIES LABELS stress TIMEOUT 900)
