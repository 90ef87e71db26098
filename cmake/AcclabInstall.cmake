# `cmake --install build --prefix P` and `cpack -G DEB`: acclab in P/bin, the OpenMP target
# libraries it loads in P/lib/acclab (found through the binary's RUNPATH, $ORIGIN-relative, so
# the tree can be moved), the scripts it runs and the compiler notes `acclab explain` reads in
# P/share/acclab, the docs in P/share/doc/acclab. Nothing of the source or build tree is read
# after install (apps/acclab/report_command.hpp's scripts_folder, explain's notes).
include(GNUInstallDirs)
set(ACCLAB_INSTALL_LIBDIR ${CMAKE_INSTALL_LIBDIR}/acclab)

set_target_properties(acclab PROPERTIES INSTALL_RPATH "$ORIGIN/../${ACCLAB_INSTALL_LIBDIR}")
install(TARGETS acclab RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
get_property(omptarget_libraries GLOBAL PROPERTY ACCLAB_OMPTARGET_LIBRARIES)
if(omptarget_libraries)
  set_target_properties(${omptarget_libraries} PROPERTIES INSTALL_RPATH "$ORIGIN")
  install(TARGETS ${omptarget_libraries} LIBRARY DESTINATION ${ACCLAB_INSTALL_LIBDIR})
endif()
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/report-html.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/acclab/scripts)
# The renderer's modules, beside it as in the source tree: reporthtml/ and run_file.py, the
# acclab.run/1 reader it shares with the plot scripts.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/scripts/reporthtml
        DESTINATION ${CMAKE_INSTALL_DATADIR}/acclab/scripts FILES_MATCHING PATTERN "*.py")
install(FILES ${PROJECT_SOURCE_DIR}/scripts/run_file.py
        DESTINATION ${CMAKE_INSTALL_DATADIR}/acclab/scripts)
install(DIRECTORY ${ACCLAB_NOTES_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/acclab/notes)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# CUDA's runtime is no Debian package: a CUDA build carries the libraries it links from the
# toolkit (cudart, and NCCL where mpi_cuda uses it), as scripts/gpu-bundle.sh does. cuBLAS and
# cuSPARSE are opened at run time from the machine's own toolkit.
if(ACCLAB_HAVE_CUDA)
  # The soname links and the files they name (libcudart.so.13 -> libcudart.so.13.0.88).
  file(GLOB cuda_runtime "${CUDAToolkit_LIBRARY_DIR}/libcudart.so.*")
  if(ACCLAB_HAVE_NCCL)
    get_filename_component(nccl_folder ${NCCL_LIBRARY} DIRECTORY)
    file(GLOB nccl_runtime "${nccl_folder}/libnccl.so.*")
    list(APPEND cuda_runtime ${nccl_runtime})
  endif()
  install(FILES ${cuda_runtime} DESTINATION ${ACCLAB_INSTALL_LIBDIR})
endif()

# The Debian package: `cpack -G DEB` in the build folder gives acclab_<version>_amd64.deb. Its
# dependencies are the Debian 12 packages of the libraries acclab links and the programs it
# runs (report-html.py needs python3 and matplotlib).
set(CPACK_PACKAGE_NAME acclab)
set(CPACK_PACKAGE_VENDOR acclab)
set(CPACK_PACKAGE_CONTACT "acclab developers <acclab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "optimisation ladders for directive-based GPU acceleration (OpenACC, OpenMP target, CUDA)")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(depends "libc6, libstdc++6, libgcc-s1, libgomp1, libfmt9, python3, python3-matplotlib")
if(ACCLAB_HAVE_OPENBLAS)
  string(APPEND depends ", libopenblas0")
endif()
if(ACCLAB_HAVE_MPI)
  string(APPEND depends ", libopenmpi3, openmpi-bin")
endif()
if(ACCLAB_OPENACC_OFFLOAD OR ACCLAB_OMPTARGET_OFFLOAD)
  # libgomp opens its nvptx plugin by name where a GPU is present; without one it runs the
  # regions on the host.
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libgomp-plugin-nvptx1")
endif()
if(ZLIB_FOUND)
  string(APPEND depends ", zlib1g")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${depends}")
set(CPACK_GENERATOR DEB)
include(CPack)
