# topi tests. They compile the topi sources of this area directly (not the whole topi module, whose
# pooling part is developed separately) on top of the autotune module and its dependencies.
file(GLOB_RECURSE _topi_ops_srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/topi/*.cc)
list(FILTER _topi_ops_srcs EXCLUDE REGEX "/src/topi/pool/")
add_library(minitvm_topi_ops OBJECT ${_topi_ops_srcs})
target_include_directories(minitvm_topi_ops PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(minitvm_topi_ops PUBLIC minitvm_autotune)

minitvm_test(test_topi LABEL unit MODULES autotune SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/test_compute.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cpu_schedule.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_cuda_templates.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_conv2d_nchwc.cc
  ${CMAKE_CURRENT_LIST_DIR}/test_layer_validation.cc)
if(TARGET test_topi)
  target_sources(test_topi PRIVATE $<TARGET_OBJECTS:minitvm_topi_ops>)
endif()
