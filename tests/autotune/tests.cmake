minitvm_test(test_autotune LABEL unit MODULES autotune SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_space.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_records.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_dispatch.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_parity.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_malformed.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_inspect.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_record_check.cc)

# libFuzzer target for the record loader and target parser, built with clang++ directly (the
# project compiler may be gcc) from the autotune and support sources. `ctest -L fuzz` runs it for
# 10 s on the seed corpus of real TopHub lines; new inputs go to the build tree, never the source.
option(MINITVM_AUTOTUNE_FUZZ "Build and run the autotune libFuzzer target when clang++ exists" ON)
find_program(MINITVM_CLANGXX NAMES clang++ clang++-19)
if(MINITVM_AUTOTUNE_FUZZ AND MINITVM_CLANGXX)
  file(GLOB _at_fuzz_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/autotune/*.cc ${PROJECT_SOURCE_DIR}/src/support/*.cc)
  set(_at_fuzz_bin ${CMAKE_CURRENT_BINARY_DIR}/fuzz_records.bin)
  add_custom_command(OUTPUT ${_at_fuzz_bin}
    COMMAND ${MINITVM_CLANGXX} -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src
            ${CMAKE_CURRENT_LIST_DIR}/fuzz_records.cc ${_at_fuzz_srcs} -o ${_at_fuzz_bin}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fuzz_records.cc ${_at_fuzz_srcs}
    COMMENT "Building libFuzzer target fuzz_records with clang++" VERBATIM)
  add_custom_target(fuzz_records ALL DEPENDS ${_at_fuzz_bin})
  file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fuzz_records_corpus)
  add_test(NAME autotune_fuzz_records
           COMMAND ${_at_fuzz_bin} -max_total_time=10 -timeout=5 -rss_limit_mb=2048 -max_len=8192
                   ${CMAKE_CURRENT_BINARY_DIR}/fuzz_records_corpus ${PROJECT_SOURCE_DIR}/tests/data/autotune/corpus)
  set_tests_properties(autotune_fuzz_records PROPERTIES LABELS "fuzz" TIMEOUT 120)
endif()
