# The CUDA backend: host code in C (CUDA runtime API and NVRTC), kernel
# sources embedded into the binary and compiled at run time for the GPU
# (NVRTC gets the kernel's headers as named headers: gpu_compile.c).
# Included from the top level: the library ipso_gpu, on top of ipso_model.

set(IPSO_EMBEDDED ${PROJECT_BINARY_DIR}/embedded_sources.c)
add_custom_command(
  OUTPUT ${IPSO_EMBEDDED}
  COMMAND ${CMAKE_COMMAND} -DOUTPUT=${IPSO_EMBEDDED}
          -DINPUTS=ipso_src_pso_kernels=${PROJECT_SOURCE_DIR}/kernels/pso_kernels.cu,ipso_src_objectives=${PROJECT_SOURCE_DIR}/src/problem/objectives.h,ipso_src_gpu_abi=${PROJECT_SOURCE_DIR}/kernels/gpu_abi.h,ipso_src_pso_device=${PROJECT_SOURCE_DIR}/kernels/pso_device.cuh,ipso_src_pso_ring=${PROJECT_SOURCE_DIR}/kernels/pso_ring.cuh,ipso_src_pso_spec=${PROJECT_SOURCE_DIR}/kernels/pso_spec.cuh,ipso_src_cec2017=${PROJECT_SOURCE_DIR}/src/problem/cec2017.h,ipso_src_cec2017_table=${PROJECT_SOURCE_DIR}/src/problem/cec2017_table.h,ipso_src_pso_migrate=${PROJECT_SOURCE_DIR}/kernels/pso_migrate.cuh
          -P ${PROJECT_SOURCE_DIR}/kernels/embed.cmake
  DEPENDS kernels/pso_kernels.cu src/problem/objectives.h kernels/gpu_abi.h kernels/pso_device.cuh
          kernels/pso_ring.cuh kernels/pso_spec.cuh src/problem/cec2017.h
          src/problem/cec2017_table.h kernels/pso_migrate.cuh kernels/embed.cmake
  COMMENT "Embedding the kernel sources" VERBATIM)

list(GET CUDAToolkit_INCLUDE_DIRS 0 IPSO_CUDA_INCLUDE)
ipso_layer(gpu kernels SOURCES backend_gpu.c gpu_compile.c gpu_migrate.c
           gpu_launch.c gpu_mapping.c gpu_plan.c gpu_stage.c
           LINKS ipso_model CUDA::cudart_static ${CMAKE_DL_LIBS})
target_sources(ipso_gpu PRIVATE ${IPSO_EMBEDDED})
# NVRTC is opened at run time (gpu_compile.c): by its name with the
# toolkit's major version, else by its path at build time.
get_target_property(IPSO_NVRTC_PATH CUDA::nvrtc IMPORTED_LOCATION)
if(NOT IPSO_NVRTC_PATH)
  set(IPSO_NVRTC_PATH libnvrtc.so.${CUDAToolkit_VERSION_MAJOR})
endif()
set_source_files_properties(${PROJECT_SOURCE_DIR}/kernels/gpu_compile.c PROPERTIES
  COMPILE_DEFINITIONS "IPSO_CUDA_INCLUDE=\"${IPSO_CUDA_INCLUDE}\";IPSO_NVRTC_SONAME=\"libnvrtc.so.${CUDAToolkit_VERSION_MAJOR}\";IPSO_NVRTC_PATH=\"${IPSO_NVRTC_PATH}\"")
target_compile_definitions(ipso_gpu PUBLIC IPSO_HAVE_CUDA=1)
