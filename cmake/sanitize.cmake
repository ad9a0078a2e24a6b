# Sanitizer and libFuzzer builds (scripts/sanitize.sh, docs/TESTING.md). Include from the top
# CMakeLists.txt before the first target, so that every object (library modules, tests, tools) is
# built the same way.
#
#   -DMINITVM_SANITIZE="address;undefined"  every target with ASan + UBSan; UBSan never recovers
#   -DMINITVM_FUZZ=ON                       clang only: every object also gets libFuzzer's coverage
#                                           instrumentation (fuzzer-no-link) and tests/fuzz builds
#                                           the libFuzzer targets (linked with -fsanitize=fuzzer)
set(MINITVM_SANITIZE "" CACHE STRING "Sanitizers for every target, e.g. address;undefined (empty: none)")
set(MINITVM_SANITIZE_FLAGS "")
if(MINITVM_SANITIZE)
  list(JOIN MINITVM_SANITIZE "," _minitvm_san)
  set(MINITVM_SANITIZE_FLAGS -fsanitize=${_minitvm_san} -fno-omit-frame-pointer)
  if("undefined" IN_LIST MINITVM_SANITIZE)
    list(APPEND MINITVM_SANITIZE_FLAGS -fno-sanitize-recover=undefined)
    # LLVM is built without RTTI: clang's vptr check cannot see the dynamic type of LLVM's objects.
    # clang's function check reads 8 bytes in front of every indirect callee: in front of a JIT'd
    # kernel that starts a page, that is an unmapped page (SEGV at the call in llvm_module.cc).
    if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
      list(APPEND MINITVM_SANITIZE_FLAGS -fno-sanitize=vptr -fno-sanitize=function)
    endif()
  endif()
  add_compile_options(${MINITVM_SANITIZE_FLAGS})
  add_link_options(${MINITVM_SANITIZE_FLAGS})
  message(STATUS "minitvm: sanitizers ${_minitvm_san} (${MINITVM_SANITIZE_FLAGS})")
endif()
if(MINITVM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "MINITVM_FUZZ=ON needs clang (libFuzzer); CMAKE_CXX_COMPILER is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "minitvm: libFuzzer targets enabled (tests/fuzz)")
endif()
