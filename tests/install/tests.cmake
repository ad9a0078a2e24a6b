# find_package(minitvm CONFIG) against an install prefix, from a user's own CMake project.
# The consumer is built with this build's compiler and sanitizer flags (an ASan-built libminitvm
# needs the ASan runtime in the executable).
list(JOIN MINITVM_SANITIZE_FLAGS " " _consumer_flags)
add_test(NAME install_find_package
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_install_test.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CXX_COMPILER} "${_consumer_flags}")
set_tests_properties(install_find_package PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "consumer: ok" TIMEOUT 600)
add_test(NAME example_readme COMMAND example_readme_example)
set_tests_properties(example_readme PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "2048")
