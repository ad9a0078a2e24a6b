# tests/codegen: one folder per module; its areas are included below.

# Areas of this module in sub-folders.
include(${CMAKE_CURRENT_LIST_DIR}/cuda/tests.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/llvm/tests.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cuda_schedules/tests.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/cuda_temps/tests.cmake)
