# `cmake --install` and the .deb (cpack, from the build folder): the programs,
# dp-train(1), and the workbench's desktop entry, icon and AppStream
# metainfo. Nothing here names the build tree; programs find their data in
# themselves (resources/ is compiled in) and the data set where Debian puts it.
include(GNUInstallDirs)

install(TARGETS dp-train RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_BINARY_DIR}/app/dp-train.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
if(DP_BUILD_GUI)
  install(TARGETS dp-workbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${PROJECT_SOURCE_DIR}/resources/dp-workbench.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/icons/dp-workbench.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/metainfo/io.github.dpworkbench.DpWorkbench.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
endif()
if(DP_HAVE_CUDA)
  install(TARGETS dp-gpu-selftest RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The .deb: its Depends from the libraries the programs link (dpkg-shlibdeps),
# the data set recommended. CUDA's libraries under /usr/local/cuda belong to
# no Debian package: shlibdeps is told to leave them to the machine. The
# programs link them, so a CUDA build's package starts only where they are
# installed (a GPU node): the package for a plain Debian machine is built
# with -DDP_CUDA=OFF (issue 27 asks for one package that does both).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME dp-workbench)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "DP Workbench developers <dp-workbench@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Train neural networks data-parallel and watch them learn")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Loaded as plugins, not linked, so shlibdeps cannot see it: the history's SQLite driver.
set(CPACK_DEBIAN_PACKAGE_DEPENDS libqt6sql6-sqlite)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS dataset-fashion-mnist)
if(DP_HAVE_CUDA)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib
                                                  /usr/local/cuda/lib64)
endif()
include(CPack)
