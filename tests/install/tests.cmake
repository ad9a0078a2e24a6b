# An install prefix: its programs run (RUNPATH), and a user's own CMake project finds it with
# find_package(minitvm CONFIG) and reads TopHub from the installed share folder. The consumer is
# built with this build's compiler and sanitizer flags (an ASan-built libminitvm needs the ASan
# runtime in the executable).
list(JOIN MINITVM_SANITIZE_FLAGS " " _consumer_flags)
add_test(NAME install_find_package
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_install_test.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CXX_COMPILER} "${_consumer_flags}")
set_tests_properties(install_find_package PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "install test: ok" TIMEOUT 600)
add_test(NAME example_readme COMMAND example_readme_example)
set_tests_properties(example_readme PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "2048")
