# The one helper that adds sources to acclab. Every source belongs to one
# programming model, and only that model's flags reach it: GCC 12 cannot
# offload-link an object compiled with both -fopenacc and -fopenmp.
#
#   acclab_sources(NAME <workload or component>
#                  PLAIN  a.cpp ...   # serial C++ (the reference, the harness)
#                  OPENMP b.cpp ...   # OpenMP host threads
#                  OPENACC c.cpp ...  # OpenACC (GPU via GCC's nvptx offload, or host fallback)
#                  OMPTARGET e.cpp ...# OpenMP target regions (GPU via GCC's nvptx offload, or
#                                     # the host): linked into the shared library
#                                     # acclab_omptarget_<NAME>, an offload image of its own
#                  CUDA d.cu ...)     # built only where a CUDA toolkit was found
#
# A workload's files come from its ladder table through acclab_ladder() below.
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

# The OpenMP target objects, in shared libraries of their own: GCC 12 builds one nvptx offload
# image per link and refuses to mix OpenACC and OpenMP code in it. Each shared object registers
# its own image with libgomp. Their code calls into the executable (the workloads' shared classes,
# the registry's types): the executables export their symbols (acclab_link_objects).
#
# One library a workload (acclab_omptarget_<workload>; the kit's runtime queries in
# acclab_omptarget_kit), not one for all: the driver links an image as one program, and since
# libgomp's device runtime calls `parallel` bodies through function pointers, every entry of an
# image gets the registers of the heaviest body anywhere in it. In one image, matmul's tuned
# blocks (254 registers) held every resident step to 8 warps a team; see
# bench/results/cpu-ptxas/omptarget-registers/NOTES.md and tests/omptarget_registers_test.sh.
if(ACCLAB_HAVE_OMPTARGET)
  # What the executables link: every acclab_omptarget_<name> library, however many are added.
  add_library(acclab_omptarget_images INTERFACE)
endif()

# The shared library of the OpenMP target sources of `name` (a workload, or kit), made on first use.
function(_acclab_omptarget_library name out_target)
  set(target acclab_omptarget_${name})
  set(${out_target} ${target} PARENT_SCOPE)
  if(TARGET ${target})
    return()
  endif()
  add_library(${target} SHARED)
  # All in the build's top folder, where the scripts look for them.
  set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  target_include_directories(${target} PRIVATE
    $<TARGET_PROPERTY:acclab_objects,INTERFACE_INCLUDE_DIRECTORIES>)
  target_compile_definitions(${target} PRIVATE
    $<TARGET_PROPERTY:acclab_objects,INTERFACE_COMPILE_DEFINITIONS>)
  target_link_libraries(${target} PRIVATE fmt::fmt nlohmann_json::nlohmann_json)
  # -Wno-unused-variable: GCC 12 calls pointers named only in the maps of an empty target data
  # region unused, as it does for OpenACC's.
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-missing-field-initializers
                         -Wno-unused-variable ${ACCLAB_OMPTARGET_FLAGS})
  target_link_options(${target} PRIVATE ${ACCLAB_OMPTARGET_LINK_FLAGS})
  add_dependencies(${target} acclab_objects)  # generated headers
  if(ACCLAB_OMPTARGET_NOTES_FLAGS)
    set_property(TARGET ${target} PROPERTY CXX_COMPILER_LAUNCHER
                 ${PROJECT_SOURCE_DIR}/cmake/truncate-notes.sh ${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
  target_link_libraries(acclab_omptarget_images INTERFACE ${target})
  set_property(GLOBAL APPEND PROPERTY ACCLAB_OMPTARGET_LIBRARIES ${target})
endfunction()

function(acclab_sources)
  cmake_parse_arguments(ARG "" "NAME" "PLAIN;OPENMP;OPENACC;OMPTARGET;CUDA" ${ARGN})
  # Source properties are per directory: set them where acclab_objects lives.
  set(sources "")
  foreach(src IN LISTS ARG_PLAIN)
    cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR})  # generated files
    list(APPEND sources ${src})
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
  if(ACCLAB_HAVE_OMPTARGET AND ARG_OMPTARGET)
    _acclab_omptarget_library(${ARG_NAME} omptarget_library)
    set(omptarget_sources "")
    foreach(src IN LISTS ARG_OMPTARGET)
      set(path ${CMAKE_CURRENT_SOURCE_DIR}/${src})
      get_filename_component(stem ${src} NAME_WE)
      if(ACCLAB_OMPTARGET_NOTES_FLAGS)
        file(MAKE_DIRECTORY ${ACCLAB_NOTES_DIR}/${ARG_NAME})
        set_source_files_properties(${path} TARGET_DIRECTORY ${omptarget_library} PROPERTIES
          COMPILE_OPTIONS "${ACCLAB_OMPTARGET_NOTES_FLAGS}=${ACCLAB_NOTES_DIR}/${ARG_NAME}/${stem}.txt")
      endif()
      list(APPEND omptarget_sources ${path})
    endforeach()
    target_sources(${omptarget_library} PRIVATE ${omptarget_sources})
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
  if(ACCLAB_HAVE_OMPTARGET)
    target_link_libraries(${target} PRIVATE acclab_omptarget_images)
    set_property(TARGET ${target} PROPERTY ENABLE_EXPORTS ON)  # for the libraries' calls
  endif()
  if(ACCLAB_HAVE_CUDA)
    target_link_libraries(${target} PRIVATE CUDA::cudart)
  endif()
endfunction()

# acclab_ladder(): reads the ladder table of the workload in the current folder
# (ladder.json) and builds what it lists:
#
#   {"workload": "jacobi2d", "family": "jacobi",         # family: the default of the rows
#    "sources": {"plain": [...], "openmp": [...], ...},   # the workload's own files
#    "steps": [                                           # the ladder, in order
#      {"name": "serial", "backend": "serial|openmp|openacc|omptarget|cuda",
#       "source": "reference.cpp",      # the variant's code: acclab explain shows its notes
#       "factory": "make_serial",       # std::unique_ptr<Instance>(const Params&), in
#                                       # namespace acclab::<workload>
#       "description": "one line",
#       "family": "...",                # optional: another ladder of the same workload
#       "tunings": ["async"],           # optional: the workload parameters that are this
#                                       # variant's knobs
#       "tuning_set": "async_tunings",  # optional: TuningSet(), in namespace acclab::<workload>
#                                       # (src/core/params.hpp): the knobs of `tunings` the step
#                                       # declares in its own file; the others are the
#                                       # workload's, shared by several steps
#       "needs": {"openmp": ["x.cpp"]}, # optional: more files the variant needs
#       "requires": ["openblas"],       # optional: libraries besides its backend ("mpi":
#                                       # a distributed step, run by every rank)
#       "gpu_unavailable": "reason",   # optional: why it must not run on a GPU
#       "seed_slow": "reason",          # optional: why the step cannot finish on the seed
#                                       # preset within the GPU gate's limit (it copies every
#                                       # pass, GCC runs it on one gang); read by
#                                       # scripts/gpu-check.py, not by the build
#       "seed_limit_s": 240}]}          # optional: the gate's limit for its seed run, where
#                                       # the step finishes but needs more than --seed-limit
#                                       # beside the gate's other GPU jobs (launch-bound
#                                       # steps); such runs start first. gpu-check.py only
#
# A row is built when its backend (and what it requires) was found; step numbers
# are positions among the rows built, within their family. A row's source is
# compiled for its backend (serial and openmp rows: host C++ with OpenMP). The
# rows built become the function ladder() of namespace acclab::<workload>, in a
# generated file; the workload's register.cpp hands it to the registry.
function(acclab_ladder)
  set(table ${CMAKE_CURRENT_SOURCE_DIR}/ladder.json)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${table})
  file(READ ${table} json)
  string(JSON workload GET "${json}" workload)
  string(JSON default_family GET "${json}" family)
  foreach(flavour plain openmp openacc omptarget cuda)
    set(files_${flavour} "")
  endforeach()

  # Appends the JSON array at <path...> of <object> to files_<flavour>.
  macro(_acclab_append_files flavour object)
    string(JSON _count ERROR_VARIABLE _missing LENGTH "${object}" ${ARGN})
    if(NOT _missing AND _count GREATER 0)
      math(EXPR _last "${_count} - 1")
      foreach(_i RANGE ${_last})
        string(JSON _file GET "${object}" ${ARGN} ${_i})
        list(APPEND files_${flavour} ${_file})
      endforeach()
    endif()
  endmacro()
  foreach(flavour plain openmp openacc omptarget cuda)
    _acclab_append_files(${flavour} "${json}" sources ${flavour})
  endforeach()

  set(declarations "")
  set(tuning_sets "")
  set(rows "")
  set(names "")
  string(JSON step_count LENGTH "${json}" steps)
  math(EXPR last_step "${step_count} - 1")
  foreach(i RANGE ${last_step})
    string(JSON row GET "${json}" steps ${i})
    foreach(field name backend source factory description)
      string(JSON ${field} ERROR_VARIABLE missing GET "${row}" ${field})
      if(missing)
        message(FATAL_ERROR "${table}: step ${i} has no \"${field}\"")
      endif()
    endforeach()
    if(name IN_LIST names)
      message(FATAL_ERROR "${table}: step ${i}: \"${name}\" is listed twice")
    endif()
    list(APPEND names ${name})
    if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${source})
      message(FATAL_ERROR "${table}: ${name}'s source ${source} does not exist")
    endif()
    string(JSON family ERROR_VARIABLE missing GET "${row}" family)
    if(missing)
      set(family ${default_family})
    endif()
    string(JSON gpu_unavailable ERROR_VARIABLE missing GET "${row}" gpu_unavailable)
    if(missing)
      set(gpu_unavailable "")
    endif()

    set(built TRUE)
    if(backend STREQUAL "serial" OR backend STREQUAL "openmp")
      set(flavour openmp)
    elseif(backend STREQUAL "openacc")
      set(flavour openacc)
      if(NOT ACCLAB_HAVE_OPENACC)
        set(built FALSE)
      endif()
    elseif(backend STREQUAL "omptarget")
      set(flavour omptarget)
      if(NOT ACCLAB_HAVE_OMPTARGET)
        set(built FALSE)
      endif()
    elseif(backend STREQUAL "cuda")
      set(flavour cuda)
      if(NOT ACCLAB_HAVE_CUDA)
        set(built FALSE)
      endif()
    else()
      message(FATAL_ERROR "${table}: ${name}: unknown backend \"${backend}\"")
    endif()
    set(distributed false)
    string(JSON require_count ERROR_VARIABLE missing LENGTH "${row}" requires)
    if(NOT missing AND require_count GREATER 0)
      math(EXPR last_require "${require_count} - 1")
      foreach(r RANGE ${last_require})
        string(JSON library GET "${row}" requires ${r})
        string(TOUPPER ${library} library)
        if(library STREQUAL "MPI")
          set(distributed true)
        endif()
        if(NOT ACCLAB_HAVE_${library})
          set(built FALSE)
        endif()
      endforeach()
    endif()
    if(NOT built)
      continue()
    endif()

    list(APPEND files_${flavour} ${source})
    foreach(needed_flavour plain openmp openacc omptarget cuda)
      _acclab_append_files(${needed_flavour} "${row}" needs ${needed_flavour})
    endforeach()
    set(tunings "")
    string(JSON tuning_count ERROR_VARIABLE missing LENGTH "${row}" tunings)
    if(NOT missing AND tuning_count GREATER 0)
      math(EXPR last_tuning "${tuning_count} - 1")
      foreach(t RANGE ${last_tuning})
        string(JSON tuning GET "${row}" tunings ${t})
        string(APPEND tunings "\"${tuning}\", ")
      endforeach()
    endif()
    string(APPEND declarations
           "std::unique_ptr<Instance> ${factory}(const Params& params);\n")
    string(JSON tuning_set ERROR_VARIABLE missing GET "${row}" tuning_set)
    if(missing)
      set(tuning_set_call "{}")
    else()
      if(NOT tuning_set IN_LIST tuning_sets)  # several rows may share one
        list(APPEND tuning_sets ${tuning_set})
        string(APPEND declarations "TuningSet ${tuning_set}();\n")
      endif()
      set(tuning_set_call "${tuning_set}()")
    endif()
    string(APPEND rows
           "      {\"${name}\", Backend::${backend}, \"${family}\", \"${source}\", ${factory},\n"
           "       R\"acclab(${description})acclab\",\n"
           "       {${tunings}},\n"
           "       R\"acclab(${gpu_unavailable})acclab\", ${distributed}, ${tuning_set_call}},\n")
  endforeach()

  # A file compiled two ways would be two objects with the same symbols.
  foreach(flavour plain openmp openacc omptarget cuda)
    list(REMOVE_DUPLICATES files_${flavour})
    foreach(other plain openmp openacc omptarget cuda)
      if(NOT other STREQUAL flavour)
        foreach(file IN LISTS files_${flavour})
          if(file IN_LIST files_${other})
            message(FATAL_ERROR "${table}: ${file} is listed as ${flavour} and as ${other}")
          endif()
        endforeach()
      endif()
    endforeach()
  endforeach()

  set(generated ${PROJECT_BINARY_DIR}/generated/workloads/${workload}/ladder.cpp)
  file(CONFIGURE OUTPUT ${generated} @ONLY CONTENT
"// Generated by cmake/AcclabVariants.cmake from workloads/@workload@/ladder.json: edit that.
// The rows of the ladder built into this binary, in order.
#include \"core/registry.hpp\"

namespace acclab::@workload@ {

@declarations@
std::vector<LadderRow> ladder() {
  return {
@rows@  };
}

}  // namespace acclab::@workload@
")
  acclab_sources(NAME ${workload}
    PLAIN   ${files_plain} ${generated}
    OPENMP  ${files_openmp}
    OPENACC ${files_openacc}
    OMPTARGET ${files_omptarget}
    CUDA    ${files_cuda})
endfunction()
