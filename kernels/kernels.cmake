# The CUDA backend: host code in C (CUDA runtime API and NVRTC), kernel
# sources embedded into the binary and compiled at run time for the GPU.
# Included from the top level: the library ipso_gpu, on top of ipso_base.

# The kernel source as NVRTC compiles it: NVRTC is given objectives.h as its
# only header, so the kernel headers below are spliced in place of their
# #include lines, recursively, with #line directives that keep NVRTC's file
# names and line numbers those of the files. Done when CMake configures;
# editing any of the files configures again.
set(IPSO_SPLICED_HEADERS gpu_abi.h pso_device.cuh)
set(IPSO_KERNEL_SOURCE ${PROJECT_BINARY_DIR}/pso_kernels_spliced.cu)

# Sets OUT to kernels/NAME with the IPSO_SPLICED_HEADERS it includes spliced in.
function(ipso_splice name out)
  file(READ ${PROJECT_SOURCE_DIR}/kernels/${name} rest)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
    ${PROJECT_SOURCE_DIR}/kernels/${name})
  set(done "")
  set(line 1) # line in NAME where REST starts
  while(TRUE)
    set(at -1)
    foreach(h IN LISTS IPSO_SPLICED_HEADERS)
      string(FIND "${rest}" "#include \"${h}\"\n" p)
      if(p GREATER -1 AND (at EQUAL -1 OR p LESS at))
        set(at ${p})
        set(hdr ${h})
      endif()
    endforeach()
    if(at EQUAL -1)
      break()
    endif()
    string(SUBSTRING "${rest}" 0 ${at} head)
    string(REGEX MATCHALL "\n" newlines "${head}")
    list(LENGTH newlines n)
    math(EXPR line "${line} + ${n} + 1")
    string(LENGTH "#include \"${hdr}\"\n" len)
    math(EXPR after "${at} + ${len}")
    string(SUBSTRING "${rest}" ${after} -1 rest)
    ipso_splice(${hdr} inner)
    string(APPEND done "${head}#line 1 \"${hdr}\"\n${inner}#line ${line} \"${name}\"\n")
  endwhile()
  set(${out} "${done}${rest}" PARENT_SCOPE)
endfunction()

ipso_splice(pso_kernels.cu ipso_spliced)
file(WRITE ${IPSO_KERNEL_SOURCE}.tmp "${ipso_spliced}")
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
add_library(ipso_gpu STATIC
  ${PROJECT_SOURCE_DIR}/kernels/backend_gpu.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_compile.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_launch.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_mapping.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_plan.c
  ${PROJECT_SOURCE_DIR}/kernels/gpu_stage.c
  ${IPSO_EMBEDDED})
set_source_files_properties(${PROJECT_SOURCE_DIR}/kernels/gpu_compile.c PROPERTIES
  COMPILE_DEFINITIONS IPSO_CUDA_INCLUDE="${IPSO_CUDA_INCLUDE}")
target_link_libraries(ipso_gpu PUBLIC ipso_base CUDA::cudart_static CUDA::nvrtc
  PRIVATE ipso_warnings ipso_fp)
target_compile_definitions(ipso_gpu PUBLIC IPSO_HAVE_CUDA=1)
add_dependencies(ipso_gpu layer_check)
