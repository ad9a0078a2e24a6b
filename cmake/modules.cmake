# Header-only interface target: the public include directory and header-only dependencies.
add_library(minitvm_headers INTERFACE)
target_include_directories(minitvm_headers INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:include>)
target_link_libraries(minitvm_headers INTERFACE nlohmann_json::nlohmann_json dlpack::dlpack)
target_compile_features(minitvm_headers INTERFACE cxx_std_20)

set(MINITVM_MODULES "" CACHE INTERNAL "")

# minitvm_module(NAME [DEPS mod...]): a static archive from src/NAME/*.cc. Modules are separate
# targets so that one module and its tests build while another module is being edited.
function(minitvm_module name)
  cmake_parse_arguments(M "" "" "DEPS" ${ARGN})
  file(GLOB_RECURSE _srcs CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${name}/*.cc")
  if(NOT _srcs)
    message(FATAL_ERROR "minitvm_module(${name}): src/${name}/ has no sources")
  endif()
  add_library(minitvm_${name} OBJECT ${_srcs})
  target_include_directories(minitvm_${name} PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(minitvm_${name} PUBLIC minitvm_headers fmt::fmt Threads::Threads)
  set(_closure ${name})
  foreach(d IN LISTS M_DEPS)
    target_link_libraries(minitvm_${name} PUBLIC minitvm_${d})
    list(APPEND _closure ${MINITVM_CLOSURE_${d}})
  endforeach()
  list(REMOVE_DUPLICATES _closure)
  set(MINITVM_CLOSURE_${name} ${_closure} CACHE INTERNAL "")
  target_compile_options(minitvm_${name} PRIVATE -Wall -Wextra -Wno-unused-parameter)
  set(MINITVM_MODULES "${MINITVM_MODULES};minitvm_${name}" CACHE INTERNAL "")
endfunction()

# minitvm_link_modules(TARGET mod...): add the objects of the modules and everything they depend on.
# Lets a test binary build against one module without the rest of the library.
function(minitvm_link_modules target)
  set(_all "")
  foreach(m IN LISTS ARGN)
    list(APPEND _all ${MINITVM_CLOSURE_${m}})
  endforeach()
  list(REMOVE_DUPLICATES _all)
  foreach(m IN LISTS _all)
    target_sources(${target} PRIVATE $<TARGET_OBJECTS:minitvm_${m}>)
    target_link_libraries(${target} PRIVATE minitvm_${m})
  endforeach()
  if("runtime" IN_LIST _all OR "codegen" IN_LIST _all)
    target_link_libraries(${target} PRIVATE minitvm_llvm ${CMAKE_DL_LIBS})
  endif()
endfunction()
