# Decides whether the CUDA code is built (the platform layer beside this
# file, the CUDA backend with cuDNN and cuBLAS, the NCCL communicator), from
# the DP_CUDA option: AUTO builds it when the toolkit, cuDNN and NCCL are all
# found, ON requires them, OFF never looks. Sets DP_HAVE_CUDA and, when it is
# ON, enables the CUDA language for sm_80 and sm_90 (plus sm_90 PTX, so newer
# GPUs JIT-compile it). Included from the top-level CMakeLists.txt, because
# the CUDA language must be enabled in the directory above every target that
# links CUDA code.
set(DP_HAVE_CUDA OFF)
if(NOT DP_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "DP_CUDA must be AUTO, ON or OFF (got '${DP_CUDA}')")
endif()

if(NOT DP_CUDA STREQUAL "OFF")
  set(_dp_cuda_root /usr/local/cuda)
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS ${_dp_cuda_root}/bin/nvcc)
    set(CMAKE_CUDA_COMPILER ${_dp_cuda_root}/bin/nvcc CACHE FILEPATH "CUDA compiler")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(NOT CUDAToolkit_ROOT AND EXISTS ${_dp_cuda_root})
    set(CUDAToolkit_ROOT ${_dp_cuda_root})
  endif()
  find_package(CUDAToolkit QUIET)
  find_path(DP_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ${_dp_cuda_root}/include)
  find_library(DP_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} ${_dp_cuda_root}/lib64)
  find_path(DP_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} ${_dp_cuda_root}/include)
  find_library(DP_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} ${_dp_cuda_root}/lib64)

  set(_dp_cuda_missing "")
  foreach(_part CMAKE_CUDA_COMPILER CUDAToolkit_FOUND DP_CUDNN_INCLUDE_DIR DP_CUDNN_LIBRARY
                DP_NCCL_INCLUDE_DIR DP_NCCL_LIBRARY)
    if(NOT ${_part})
      list(APPEND _dp_cuda_missing ${_part})
    endif()
  endforeach()
  if(NOT TARGET CUDA::cublas)
    list(APPEND _dp_cuda_missing CUDA::cublas)
  endif()

  if(_dp_cuda_missing STREQUAL "")
    set(DP_HAVE_CUDA ON)
  elseif(DP_CUDA STREQUAL "ON")
    message(FATAL_ERROR "DP_CUDA=ON but not found: ${_dp_cuda_missing} "
                        "(install the CUDA toolkit, cuDNN 9 and NCCL 2 under ${_dp_cuda_root}, "
                        "or configure with -DDP_CUDA=OFF)")
  endif()
endif()

if(DP_HAVE_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80-real;90")
  endif()
  enable_language(CUDA)
  # CMake 3.25 knows no C++20 dialect flag for nvcc 12+; the kernels include
  # backend.h, which is C++20.
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  message(STATUS "CUDA backend: on (CUDA ${CUDAToolkit_VERSION}, ${DP_CUDNN_LIBRARY}, "
                 "${DP_NCCL_LIBRARY}; architectures ${CMAKE_CUDA_ARCHITECTURES})")
else()
  message(STATUS "CUDA backend: off (DP_CUDA=${DP_CUDA}${_dp_cuda_missing})")
endif()
