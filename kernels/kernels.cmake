# The CUDA backend: host code in C (CUDA runtime API and NVRTC), kernel
# sources embedded into the binary and compiled at run time for the GPU.
# Included from the top level and added to ipso_core (it uses the core helpers).

# The kernel source as NVRTC compiles it: kernels/gpu_abi.h (the types the
# host shares) spliced in place of its #include line, since NVRTC is given
# objectives.h as its only header; #line directives keep NVRTC's file names
# and line numbers those of the two files. Done when CMake configures;
# editing either file configures again.
set(IPSO_KERNEL_SOURCE ${PROJECT_BINARY_DIR}/pso_kernels_spliced.cu)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/kernels/pso_kernels.cu ${PROJECT_SOURCE_DIR}/kernels/gpu_abi.h)
file(READ ${PROJECT_SOURCE_DIR}/kernels/pso_kernels.cu ipso_cu)
file(READ ${PROJECT_SOURCE_DIR}/kernels/gpu_abi.h ipso_abi)
set(ipso_include "#include \"gpu_abi.h\"\n")
string(FIND "${ipso_cu}" "${ipso_include}" ipso_at)
if(ipso_at LESS 0)
  message(FATAL_ERROR "kernels/pso_kernels.cu does not #include \"gpu_abi.h\"")
endif()
string(SUBSTRING "${ipso_cu}" 0 ${ipso_at} ipso_head)
string(LENGTH "${ipso_include}" ipso_len)
math(EXPR ipso_after "${ipso_at} + ${ipso_len}")
string(SUBSTRING "${ipso_cu}" ${ipso_after} -1 ipso_tail)
string(REGEX MATCHALL "\n" ipso_lines "${ipso_head}")
list(LENGTH ipso_lines ipso_next)
math(EXPR ipso_next "${ipso_next} + 2") # the line after the #include
file(WRITE ${IPSO_KERNEL_SOURCE}.tmp
  "${ipso_head}#line 1 \"gpu_abi.h\"\n${ipso_abi}#line ${ipso_next} \"pso_kernels.cu\"\n${ipso_tail}")
configure_file(${IPSO_KERNEL_SOURCE}.tmp ${IPSO_KERNEL_SOURCE} COPYONLY)

set(IPSO_EMBEDDED ${PROJECT_BINARY_DIR}/embedded_sources.c)
add_custom_command(
  OUTPUT ${IPSO_EMBEDDED}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${IPSO_EMBEDDED}
          -DINPUTS=ipso_src_pso_kernels=${IPSO_KERNEL_SOURCE},ipso_src_objectives=${PROJECT_SOURCE_DIR}/kernels/objectives.h
          -P ${PROJECT_SOURCE_DIR}/kernels/embed.cmake
  DEPENDS ${IPSO_KERNEL_SOURCE} kernels/objectives.h kernels/embed.cmake
  COMMENT "Embedding the kernel sources" VERBATIM)

list(GET CUDAToolkit_INCLUDE_DIRS 0 IPSO_CUDA_INCLUDE)
target_sources(ipso_core PRIVATE
  ${PROJECT_SOURCE_DIR}/kernels/backend_gpu.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_compile.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_launch.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_mapping.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_plan.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_stage.c
  ${IPSO_EMBEDDED})
set_source_files_properties(${PROJECT_SOURCE_DIR}/kernels/gpu_compile.c PROPERTIES
  COMPILE_DEFINITIONS IPSO_CUDA_INCLUDE="${IPSO_CUDA_INCLUDE}")
target_link_libraries(ipso_core PUBLIC CUDA::cudart_static CUDA::nvrtc)
target_compile_definitions(ipso_core PUBLIC IPSO_HAVE_CUDA=1)
