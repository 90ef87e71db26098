# Backend detection. Every compiler-specific flag lives here so that another
# OpenACC compiler (nvc++: -acc -gpu=cc90 -Minfo=accel) can be slotted in by
# setting ACCLAB_OPENACC_FLAGS / ACCLAB_OPENACC_LINK_FLAGS on the command line.

find_package(OpenMP REQUIRED COMPONENTS CXX)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(ZLIB REQUIRED)
find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp REQUIRED)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
endif()

# ---- OpenACC -----------------------------------------------------------------
set(ACCLAB_OFFLOAD_ARCH "sm_80" CACHE STRING
    "PTX ISA target of GCC's nvptx offload compiler (CUDA 13's ptxas rejects the default sm_35)")
set(ACCLAB_HAVE_OPENACC OFF)
if(ACCLAB_ENABLE_OPENACC)
  if(NOT DEFINED ACCLAB_OPENACC_FLAGS)
    include(CheckCXXSourceCompiles)
    set(_acc_probe "#include <openacc.h>\nint main(){int s=0;\n#pragma acc parallel loop reduction(+:s)\nfor(int i=0;i<8;i++) s+=i;\nreturn acc_get_num_devices(acc_device_host) > 0 ? 0 : s;}")
    set(_offload_flags -fopenacc -foffload=nvptx-none -foffload-options=-misa=${ACCLAB_OFFLOAD_ARCH})
    string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${_offload_flags}")
    set(CMAKE_REQUIRED_LINK_OPTIONS ${_offload_flags})
    check_cxx_source_compiles("${_acc_probe}" ACCLAB_GCC_NVPTX_OFFLOAD)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    if(ACCLAB_GCC_NVPTX_OFFLOAD)
      # GCC 12's default handling of `kernels` ("parloops") leaves every loop we tried
      # sequential: one gang of 32 lanes, even under `loop independent`. "decompose" turns
      # each loop nest marked independent into a parallel region, as the course's compiler
      # does, and still hands unmarked loops to parloops (which keeps them sequential).
      set(_acc_flags ${_offload_flags} --param=openacc-kernels=decompose)
    else()
      set(CMAKE_REQUIRED_FLAGS "-fopenacc -foffload=disable")
      set(CMAKE_REQUIRED_LINK_OPTIONS -fopenacc -foffload=disable)
      check_cxx_source_compiles("${_acc_probe}" ACCLAB_GCC_HOST_OPENACC)
      unset(CMAKE_REQUIRED_LINK_OPTIONS)
      if(ACCLAB_GCC_HOST_OPENACC)
        set(_acc_flags -fopenacc -foffload=disable --param=openacc-kernels=decompose)
        message(STATUS "acclab: no GCC nvptx offload compiler (gcc-12-offload-nvptx); OpenACC runs on the host only")
      endif()
    endif()
    unset(CMAKE_REQUIRED_FLAGS)
    set(ACCLAB_OPENACC_FLAGS "${_acc_flags}" CACHE STRING "Compile flags of OpenACC sources")
  endif()
  # Derived from the (cached) flags, so that a re-configure keeps it.
  set(ACCLAB_OPENACC_OFFLOAD OFF)
  if(ACCLAB_OPENACC_FLAGS MATCHES "-foffload=nvptx")
    set(ACCLAB_OPENACC_OFFLOAD ON)
  endif()
  if(NOT DEFINED ACCLAB_OPENACC_LINK_FLAGS)
    set(_acc_link ${ACCLAB_OPENACC_FLAGS})
    if(ACCLAB_OPENACC_OFFLOAD)
      # Debian's crtoffloadtable.o is not position independent: a PIE link warns about text
      # relocations. A non-PIE executable links cleanly.
      list(APPEND _acc_link -no-pie)
    endif()
    set(ACCLAB_OPENACC_LINK_FLAGS "${_acc_link}" CACHE STRING "Link flags of binaries holding OpenACC objects")
  endif()
  if(ACCLAB_OPENACC_FLAGS)
    set(ACCLAB_HAVE_OPENACC ON)
    message(STATUS "acclab: OpenACC flags: ${ACCLAB_OPENACC_FLAGS}")
  else()
    message(STATUS "acclab: the compiler has no OpenACC support; OpenACC variants are left out")
  endif()
endif()

# GCC keeps its OpenACC decisions as -fopt-info notes, one file per source (acclab explain).
set(ACCLAB_OPENACC_NOTES_FLAGS "")
set(ACCLAB_OPENACC_WARNING_FLAGS "")
if(ACCLAB_HAVE_OPENACC AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(ACCLAB_OPENACC_NOTES_FLAGS "-fopt-info-omp-all")
  # GCC 12 reports pointers named only in data clauses of empty data regions as unused.
  set(ACCLAB_OPENACC_WARNING_FLAGS -Wno-unused-variable)
endif()

# ---- OpenMP target offload ---------------------------------------------------------
# The omptarget steps: OpenMP `target` regions, offloaded by GCC's nvptx compiler where it is
# installed, else run on the host (target regions fall back to the initial device). GCC 12's
# nvptx mkoffload builds one offload image per link and refuses one holding both OpenACC and
# OpenMP code ("either -fopenacc or -fopenmp must be set"): the omptarget sources are linked
# into shared libraries of their own (acclab_omptarget_<workload>, cmake/AcclabVariants.cmake),
# whose images libgomp registers beside the executable's OpenACC one.
option(ACCLAB_ENABLE_OMPTARGET "Build the OpenMP target offload steps (omptarget)" ON)
set(ACCLAB_HAVE_OMPTARGET OFF)
if(ACCLAB_ENABLE_OMPTARGET)
  if(NOT DEFINED ACCLAB_OMPTARGET_FLAGS)
    include(CheckCXXSourceCompiles)
    set(_omp_probe "#include <omp.h>\nint main(){int s=0;\n#pragma omp target teams distribute parallel for reduction(+:s) map(tofrom:s)\nfor(int i=0;i<8;i++) s+=i;\nreturn omp_get_num_devices() < 0 ? s : 0;}")
    set(_omp_offload -fopenmp -foffload=nvptx-none -foffload-options=-misa=${ACCLAB_OFFLOAD_ARCH})
    string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${_omp_offload}")
    set(CMAKE_REQUIRED_LINK_OPTIONS ${_omp_offload})
    check_cxx_source_compiles("${_omp_probe}" ACCLAB_GCC_NVPTX_OMP_OFFLOAD)
    unset(CMAKE_REQUIRED_LINK_OPTIONS)
    if(ACCLAB_GCC_NVPTX_OMP_OFFLOAD)
      set(_omp_flags ${_omp_offload})
    else()
      # No offload compiler: the target regions run on the host. -foffload=disable, not plain
      # -fopenmp: a GCC configured for offload would otherwise look for the offload compiler.
      set(CMAKE_REQUIRED_FLAGS "-fopenmp -foffload=disable")
      set(CMAKE_REQUIRED_LINK_OPTIONS -fopenmp -foffload=disable)
      check_cxx_source_compiles("${_omp_probe}" ACCLAB_GCC_HOST_OMPTARGET)
      unset(CMAKE_REQUIRED_LINK_OPTIONS)
      if(ACCLAB_GCC_HOST_OMPTARGET)
        set(_omp_flags -fopenmp -foffload=disable)
      else()
        set(_omp_flags ${OpenMP_CXX_FLAGS})
      endif()
      message(STATUS "acclab: no GCC nvptx offload compiler for OpenMP; target regions run on the host")
    endif()
    unset(CMAKE_REQUIRED_FLAGS)
    set(ACCLAB_OMPTARGET_FLAGS "${_omp_flags}" CACHE STRING "Compile flags of OpenMP target sources")
  endif()
  set(ACCLAB_OMPTARGET_OFFLOAD OFF)
  if(ACCLAB_OMPTARGET_FLAGS MATCHES "-foffload=nvptx")
    set(ACCLAB_OMPTARGET_OFFLOAD ON)
  endif()
  if(NOT DEFINED ACCLAB_OMPTARGET_LINK_FLAGS)
    set(_omp_link ${ACCLAB_OMPTARGET_FLAGS})
    if(ACCLAB_OMPTARGET_OFFLOAD)
      # Debian's crtoffloadtable.o is not position independent: its relocations are text
      # relocations in the shared library, which ld would warn about.
      list(APPEND _omp_link -Wl,-z,notext)
    endif()
    set(ACCLAB_OMPTARGET_LINK_FLAGS "${_omp_link}" CACHE STRING
        "Link flags of the shared library holding the OpenMP target objects")
  endif()
  if(ACCLAB_OMPTARGET_FLAGS)
    set(ACCLAB_HAVE_OMPTARGET ON)
    message(STATUS "acclab: OpenMP target flags: ${ACCLAB_OMPTARGET_FLAGS}")
  endif()
endif()
# GCC's notes on the target regions, for acclab explain. GCC 12's -fopt-info-omp notes are
# OpenACC's alone (none for OpenMP target); its missed-inlining notes name each libgomp entry
# point the outlined region code calls (GOMP_target_ext, GOMP_teams4, GOMP_parallel), which
# compiler_notes.cpp's target_region_calls keeps.
set(ACCLAB_OMPTARGET_NOTES_FLAGS "")
if(ACCLAB_HAVE_OMPTARGET AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(ACCLAB_OMPTARGET_NOTES_FLAGS "-fopt-info-omp-inline-missed")
endif()

# ---- CUDA --------------------------------------------------------------------
set(ACCLAB_HAVE_CUDA OFF)
if(ACCLAB_ENABLE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(ACCLAB_HAVE_CUDA ON)
    message(STATUS "acclab: CUDA ${CUDAToolkit_VERSION} found; CUDA variants are built for sm_${CMAKE_CUDA_ARCHITECTURES}")
  elseif(ACCLAB_REQUIRE_CUDA)
    message(FATAL_ERROR "acclab: ACCLAB_REQUIRE_CUDA is set but no CUDA toolkit was found")
  else()
    message(STATUS "acclab: no CUDA toolkit found; CUDA variants are left out")
  endif()
endif()

# ---- OpenBLAS (matmul's cpu_blas) ---------------------------------------------
# Debian's libopenblas-dev ships openblas.pc; without it cpu_blas is left out.
set(ACCLAB_HAVE_OPENBLAS OFF)
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(OPENBLAS IMPORTED_TARGET openblas)
  if(OPENBLAS_FOUND)
    set(ACCLAB_HAVE_OPENBLAS ON)
    message(STATUS "acclab: OpenBLAS ${OPENBLAS_VERSION} found (matmul/cpu_blas)")
  endif()
endif()
if(NOT ACCLAB_HAVE_OPENBLAS)
  message(STATUS "acclab: no OpenBLAS (pkg-config openblas); matmul/cpu_blas is left out")
endif()

# ---- MPI (the mpi_* steps) ------------------------------------------------------
# Debian's libopenmpi-dev. The acclab binary links it either way; it calls MPI_Init only
# when an MPI launcher started it (core/mpi_env.cpp), so a plain start costs nothing.
set(ACCLAB_HAVE_MPI OFF)
if(ACCLAB_ENABLE_MPI)
  find_package(MPI COMPONENTS CXX QUIET)
  if(MPI_CXX_FOUND)
    set(ACCLAB_HAVE_MPI ON)
    message(STATUS "acclab: MPI ${MPI_CXX_VERSION} found; the mpi_* steps are built")
  else()
    message(STATUS "acclab: no MPI (libopenmpi-dev); the mpi_* steps are left out")
  endif()
endif()

# ---- NCCL (device-to-device halos where MPI is not CUDA-aware) ----------------------
# libnccl comes with the CUDA toolkits of the build and the GPU machines; the mpi_cuda steps
# need it (and MPI) besides CUDA.
set(ACCLAB_HAVE_NCCL OFF)
if(ACCLAB_HAVE_CUDA AND ACCLAB_HAVE_MPI)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
  find_library(NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR})
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(ACCLAB_HAVE_NCCL ON)
    message(STATUS "acclab: NCCL found (${NCCL_LIBRARY}); mpi_cuda moves halos through it")
  else()
    message(STATUS "acclab: no NCCL; the mpi_cuda steps are left out")
  endif()
endif()
