# Fuzz harnesses (docs/TESTING.md). tests/fuzz/fuzz_<name>.cc defines LLVMFuzzerTestOneInput; a
# finding is a crash, a trap or a sanitizer report. Inputs:
#   corpus/<name>/  seeds and the reproducers of fixed findings: replayed by every ctest run
#   known/<name>/   reproducers of findings not fixed yet: not replayed (move them to corpus/ once fixed)
# Every build: fuzz_<name>_replay, the harness with a plain main() (replay_main.cc), and the ctest
# entry fuzz_<name>_replay running it once on corpus/<name>. With MINITVM_FUZZ=ON (clang,
# scripts/sanitize.sh) the binary is a libFuzzer target instead; the replay is `-runs=0` on the
# corpus, and fuzz_<name>_run fuzzes RUNS inputs from it with a fixed seed (the same inputs every
# time, so a CI failure reproduces), at most RUN_SECONDS; new inputs go to the build tree.
#
# RUN_DISABLED: the short run finds a known, not yet fixed bug (see known/README.md); its ctest
# entry is disabled until the fix is merged.
#
# minitvm_fuzzer(NAME MODULES mods... [RUNS n] [RUN_SECONDS s] [MAX_LEN bytes] [TIMEOUT_S s] [RUN_DISABLED])
function(minitvm_fuzzer name)
  cmake_parse_arguments(F "RUN_DISABLED" "RUNS;RUN_SECONDS;MAX_LEN;TIMEOUT_S" "MODULES" ${ARGN})
  if(NOT F_RUNS)
    set(F_RUNS 1000)
  endif()
  if(NOT F_RUN_SECONDS)
    set(F_RUN_SECONDS 30)
  endif()
  if(MINITVM_FUZZ_SECONDS)
    set(F_RUN_SECONDS ${MINITVM_FUZZ_SECONDS})
  endif()
  if(NOT F_MAX_LEN)
    set(F_MAX_LEN 4096)
  endif()
  if(NOT F_TIMEOUT_S)
    set(F_TIMEOUT_S 10)
  endif()
  set(_corpus ${CMAKE_CURRENT_LIST_DIR}/corpus/${name})
  if(MINITVM_FUZZ)
    set(_bin fuzz_${name})
    add_executable(${_bin} ${CMAKE_CURRENT_LIST_DIR}/fuzz_${name}.cc)
    target_link_options(${_bin} PRIVATE -fsanitize=fuzzer)
  else()
    set(_bin fuzz_${name}_replay)
    add_executable(${_bin} ${CMAKE_CURRENT_LIST_DIR}/fuzz_${name}.cc ${CMAKE_CURRENT_LIST_DIR}/replay_main.cc)
  endif()
  minitvm_link_modules(${_bin} ${F_MODULES})
  target_include_directories(${_bin} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/tests)
  target_compile_definitions(${_bin} PRIVATE MINITVM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  if(MINITVM_FUZZ)
    set(_work ${CMAKE_CURRENT_BINARY_DIR}/fuzz_${name}_corpus)
    file(MAKE_DIRECTORY ${_work})
    add_test(NAME fuzz_${name}_replay COMMAND ${_bin} -runs=0 -timeout=${F_TIMEOUT_S} -rss_limit_mb=4096 ${_corpus})
    add_test(NAME fuzz_${name}_run
             COMMAND ${_bin} -seed=1 -runs=${F_RUNS} -max_total_time=${F_RUN_SECONDS} -timeout=${F_TIMEOUT_S} -rss_limit_mb=4096
                     -max_len=${F_MAX_LEN} -print_final_stats=1 ${_work} ${_corpus})
    set_tests_properties(fuzz_${name}_run PROPERTIES LABELS fuzz TIMEOUT 300)
    if(F_RUN_DISABLED)
      set_tests_properties(fuzz_${name}_run PROPERTIES DISABLED TRUE)
    endif()
  else()
    add_test(NAME fuzz_${name}_replay COMMAND ${_bin} ${_corpus})
  endif()
  set_tests_properties(fuzz_${name}_replay PROPERTIES LABELS fuzz TIMEOUT 300)
endfunction()

# records: topi registers the CUDA template spaces the loader checks indices against.
minitvm_fuzzer(records MODULES topi RUNS 20000 MAX_LEN 8192)
minitvm_fuzzer(onnx_loader MODULES frontend RUNS 300 MAX_LEN 4096)
# (Its run used to find adaptive planning's negative input sizes within seconds; those reproducers
# are fixed and replayed from corpus/pool_plan, and the run passes under the sanitizer stage.)
minitvm_fuzzer(pool_plan MODULES frontend RUNS 2000 MAX_LEN 128)
minitvm_fuzzer(schedule MODULES codegen RUNS 40 MAX_LEN 64 TIMEOUT_S 60)
# relay_onnx: the graph-level importer, and where a model imports with small inputs, the reference
# executor against an llvm build (each input compiles a module: few runs).
minitvm_fuzzer(relay_onnx MODULES relay RUNS 150 MAX_LEN 4096 TIMEOUT_S 60)
