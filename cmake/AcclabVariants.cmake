# The one helper that adds sources to acclab. Every source belongs to one
# programming model, and only that model's flags reach it: GCC 12 cannot
# offload-link an object compiled with both -fopenacc and -fopenmp.
#
#   acclab_sources(NAME <workload or component>
#                  PLAIN  a.cpp ...   # serial C++ (the reference, the harness)
#                  OPENMP b.cpp ...   # OpenMP host threads
#                  OPENACC c.cpp ...  # OpenACC (GPU via GCC's nvptx offload, or host fallback)
#                  CUDA d.cu ...)     # built only where a CUDA toolkit was found
#
# All sources go into the object library acclab_objects, which the acclab
# executable and the test binary link (objects, not an archive, so that the
# offload linker sees every OpenACC region).

add_library(acclab_objects OBJECT)
target_include_directories(acclab_objects PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR})
target_link_libraries(acclab_objects PUBLIC fmt::fmt nlohmann_json::nlohmann_json)
target_compile_options(acclab_objects PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-missing-field-initializers>)
set(ACCLAB_NOTES_DIR ${PROJECT_BINARY_DIR}/notes)
if(ACCLAB_OPENACC_NOTES_FLAGS)
  # Chained before any launcher the user set (ccache, say): the script ends with exec "$@".
  set_property(TARGET acclab_objects PROPERTY CXX_COMPILER_LAUNCHER
               ${PROJECT_SOURCE_DIR}/cmake/truncate-notes.sh ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()
if(ACCLAB_HAVE_CUDA)
  # ptxas's per-kernel resource report, kept for acclab explain.
  target_compile_options(acclab_objects PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-v>)
  set_property(TARGET acclab_objects PROPERTY CUDA_COMPILER_LAUNCHER
               ${PROJECT_SOURCE_DIR}/cmake/capture-ptxas.sh ${ACCLAB_NOTES_DIR}
               ${CMAKE_CUDA_COMPILER_LAUNCHER})
endif()
file(MAKE_DIRECTORY ${ACCLAB_NOTES_DIR})

function(acclab_sources)
  cmake_parse_arguments(ARG "" "NAME" "PLAIN;OPENMP;OPENACC;CUDA" ${ARGN})
  # Source properties are per directory: set them where acclab_objects lives.
  set(sources "")
  foreach(src IN LISTS ARG_PLAIN)
    list(APPEND sources ${CMAKE_CURRENT_SOURCE_DIR}/${src})
  endforeach()
  foreach(src IN LISTS ARG_OPENMP)
    set(path ${CMAKE_CURRENT_SOURCE_DIR}/${src})
    set_source_files_properties(${path} TARGET_DIRECTORY acclab_objects
                                PROPERTIES COMPILE_OPTIONS "${OpenMP_CXX_FLAGS}")
    list(APPEND sources ${path})
  endforeach()
  if(ACCLAB_HAVE_OPENACC)
    foreach(src IN LISTS ARG_OPENACC)
      set(path ${CMAKE_CURRENT_SOURCE_DIR}/${src})
      get_filename_component(stem ${src} NAME_WE)
      set(options ${ACCLAB_OPENACC_FLAGS} ${ACCLAB_OPENACC_WARNING_FLAGS})
      if(ACCLAB_OPENACC_NOTES_FLAGS)
        file(MAKE_DIRECTORY ${ACCLAB_NOTES_DIR}/${ARG_NAME})
        list(APPEND options "${ACCLAB_OPENACC_NOTES_FLAGS}=${ACCLAB_NOTES_DIR}/${ARG_NAME}/${stem}.txt")
      endif()
      set_source_files_properties(${path} TARGET_DIRECTORY acclab_objects
                                  PROPERTIES COMPILE_OPTIONS "${options}")
      list(APPEND sources ${path})
    endforeach()
  endif()
  if(ACCLAB_HAVE_CUDA)
    foreach(src IN LISTS ARG_CUDA)
      list(APPEND sources ${CMAKE_CURRENT_SOURCE_DIR}/${src})
    endforeach()
  endif()
  target_sources(acclab_objects PRIVATE ${sources})
endfunction()

# Link options for any executable that holds acclab_objects.
function(acclab_link_objects target)
  target_link_libraries(${target} PRIVATE acclab_objects OpenMP::OpenMP_CXX)
  if(ACCLAB_HAVE_OPENACC)
    target_link_options(${target} PRIVATE ${ACCLAB_OPENACC_LINK_FLAGS})
  endif()
  if(ACCLAB_HAVE_CUDA)
    target_link_libraries(${target} PRIVATE CUDA::cudart)
  endif()
endfunction()
