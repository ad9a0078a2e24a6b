# ONNX model loading for the pooling frontend (minitvm::frontend::onnx): Debian's libonnx-dev
# (targets onnx / onnx_proto from ONNXConfig.cmake, ONNX_NAMESPACE=onnx, ONNX_ML=1) over protobuf.
# Include from the top CMakeLists.txt AFTER add_library(minitvm ...). Without the packages the
# frontend still builds; frontend::onnx then throws "built without ONNX support".
if(MINITVM_ONNX_CMAKE_INCLUDED)
  return()
endif()
set(MINITVM_ONNX_CMAKE_INCLUDED ON)

find_package(Protobuf QUIET)
if(Protobuf_FOUND)
  find_package(ONNX CONFIG QUIET)
endif()

if(TARGET onnx_proto)
  set(MINITVM_HAVE_ONNX ON)
  message(STATUS "minitvm: ONNX ${ONNX_VERSION} (onnx_proto) found: frontend::onnx enabled")
  target_link_libraries(minitvm_frontend PUBLIC onnx_proto)
  target_compile_definitions(minitvm_frontend PUBLIC MINITVM_HAVE_ONNX=1)
  if(TARGET minitvm)
    target_link_libraries(minitvm PRIVATE onnx_proto)
  endif()
else()
  set(MINITVM_HAVE_ONNX OFF)
  message(STATUS "minitvm: libonnx-dev/protobuf not found: frontend::onnx disabled")
endif()
