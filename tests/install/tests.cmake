# An install prefix: its programs run (RUNPATH), and a user's own CMake project finds it with
# find_package(minitvm CONFIG) and reads TopHub from the installed share folder.
add_test(NAME install_find_package
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/run_install_test.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(install_find_package PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "install test: ok" TIMEOUT 600)
add_test(NAME example_readme COMMAND example_readme_example)
set_tests_properties(example_readme PROPERTIES LABELS e2e PASS_REGULAR_EXPRESSION "2048")
