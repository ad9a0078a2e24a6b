# minitvm_runtime_lite: the runtime without LLVM and NVRTC, for programs that only run exported
# networks (runtime::load_compiled_graph + GraphExecutor): NDArray/DLPack, Module and the "llvm"
# module over dlopen'ed code, the thread pool behind minitvm_parallel_for, the CUDA driver module,
# the graph executor, params and profiler. Compiled from the same sources as the runtime module.
set(_minitvm_lite_srcs
  support/logging.cc ir/dtype.cc
  runtime/ndarray.cc runtime/dlpack.cc runtime/module.cc runtime/npy.cc
  runtime/cpu/thread_pool.cc runtime/cpu/workspace.cc runtime/cpu/guarded_memory.cc runtime/cpu/llvm_module.cc
  runtime/cuda/cuda_driver.cc runtime/cuda/cuda_module.cc runtime/cuda/cuda_paths.cc
  runtime/graph/graph_executor.cc runtime/graph/graph_json.cc runtime/graph/params.cc runtime/graph/profiler.cc runtime/graph/load.cc
  runtime/graph/combined_module.cc)
list(TRANSFORM _minitvm_lite_srcs PREPEND ${PROJECT_SOURCE_DIR}/src/)
add_library(minitvm_runtime_lite STATIC ${_minitvm_lite_srcs})
target_include_directories(minitvm_runtime_lite PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(minitvm_runtime_lite PUBLIC minitvm_headers fmt::fmt Threads::Threads ${CMAKE_DL_LIBS})
target_compile_options(minitvm_runtime_lite PRIVATE -Wall -Wextra -Wno-unused-parameter)
