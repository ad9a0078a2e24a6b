include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS minitvm minitvm_headers EXPORT minitvmTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/minitvm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT minitvmTargets NAMESPACE minitvm:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/minitvm)
configure_package_config_file(cmake/minitvmConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/minitvmConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/minitvm)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/minitvmConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/minitvmConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/minitvmConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/minitvm)
install(DIRECTORY tophub/ DESTINATION ${CMAKE_INSTALL_DATADIR}/minitvm/tophub)
