# `minitvm tune MODEL --mpi` under mpirun on loopback (3 ranks; killed, hung and refused ranks) and
# the network tuning command line. The MPI tests skip when mpirun is missing.
minitvm_test(test_mpi_tune LABEL e2e MODULES relay frontend SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_mpi_tune.cc)
add_dependencies(test_mpi_tune minitvm_cli)
target_compile_definitions(test_mpi_tune PRIVATE MINITVM_CLI_PATH="$<TARGET_FILE:minitvm_cli>")
if(MINITVM_HAVE_MPI AND MPIEXEC_EXECUTABLE)
  target_compile_definitions(test_mpi_tune PRIVATE MINITVM_MPIRUN_PATH="${MPIEXEC_EXECUTABLE}")
endif()
