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
# The CUDA module, which the programs load when a CUDA device is listed or
# asked for, from lib/dp-workbench/ beside bin/ (engine/module/cuda_module.h:
# "lib", not the multiarch libdir); dp-gpu-selftest links it and finds it
# there through its RUNPATH (app/CMakeLists.txt). The module finds CUDA's
# libraries on LD_LIBRARY_PATH, then where the build found them.
if(DP_HAVE_CUDA)
  set_target_properties(dp_cuda PROPERTIES INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
  install(TARGETS dp_cuda LIBRARY DESTINATION lib/dp-workbench)
  install(TARGETS dp-gpu-selftest RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The .deb: its Depends from the libraries the programs link (dpkg-shlibdeps),
# the data set recommended. CUDA's libraries under /usr/local/cuda belong to
# no Debian package: shlibdeps is told to leave them to the machine. Only the
# CUDA module (and dp-gpu-selftest) link them, and the programs load the
# module only when it can be loaded, so one package, built with CUDA or
# without, installs and trains on a plain Debian machine and uses the GPUs
# of a node that has CUDA's libraries.
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
