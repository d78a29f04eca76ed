# `cmake --install BUILD --prefix P` and `cpack -G DEB` (docs/install.md).
#
#   P/bin/rocm-perf
#   P/lib/rocm-perf/      what rocm-perf injects or starts (CUDA collector, capture and counter libraries, replay
#                         runners, spill converter, ceilings benchmark): support/libexec.cpp looks beside the
#                         executable, then in ../lib/rocm-perf, so an install needs no path compiled in
#   P/share/rocm-perf/    share/ of the source tree (prompts, counter files) and schemas/
#   P/share/doc/rocm-perf README.md, docs/
#
# lib/rocm-perf is literal, not CMAKE_INSTALL_LIBDIR: Debian's multiarch libdir (lib/x86_64-linux-gnu) is for
# shared libraries other programs link, and these are rocm-perf's own helpers.
include(GNUInstallDirs)
set(RPL_INSTALL_LIBEXEC lib/rocm-perf)
set(RPL_INSTALL_DATA ${CMAKE_INSTALL_DATADIR}/rocm-perf)

install(TARGETS rocm-perf RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
# Helpers exist only where their SDK was found at configure time (CUPTI, cuda.h, HSA headers, nvcc).
foreach(helper rpl_cuda_collector rpl_nccl_profiler rpl_cuda_capture rpl_cupti_counters rpl_cupti_metrics rpl_pc_sampling rpl_hsa_capture rpl_replay_cuda rpl_replay_hsa
               rpl_spill_convert)
  if(TARGET ${helper})
    install(TARGETS ${helper} LIBRARY DESTINATION ${RPL_INSTALL_LIBEXEC} RUNTIME DESTINATION ${RPL_INSTALL_LIBEXEC}
            COMPONENT runtime)
  endif()
endforeach()
if(TARGET rpl_ceilings_bench)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/src/cli/rpl_ceilings_bench DESTINATION ${RPL_INSTALL_LIBEXEC} COMPONENT runtime)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/share/ DESTINATION ${RPL_INSTALL_DATA} COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/schemas/ DESTINATION ${RPL_INSTALL_DATA}/schemas COMPONENT runtime)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/rocm-perf
        COMPONENT runtime)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/rocm-perf/docs COMPONENT runtime)

# Debian package. Depends comes from dpkg-shlibdeps over everything installed (Debian 12 package names of
# the shared libraries actually linked: libsqlite3-0, libfmt9, libre2-9, libprotobuf-lite32, ...); a library
# no Debian package owns (NVIDIA's libcupti, loaded only by the CUDA helpers) is left out rather than
# failing the build, as CPack passes --ignore-missing-info.
# The CUDA helpers link libcuda (the driver's; at build time only its stub) and libcupti (the toolkit's), which
# no Debian package provides and dpkg-shlibdeps cannot even find under their sonames: links by soname in a
# private folder let it skip them (they are the user's driver and toolkit, not dependencies).
set(rpl_private_libs ${CMAKE_BINARY_DIR}/shlibdeps-private)
file(MAKE_DIRECTORY ${rpl_private_libs})
foreach(lib ${CUPTI_LIBRARY} ${CUDA_DRIVER_LIBRARY})
  if(lib AND EXISTS ${lib})
    execute_process(COMMAND readelf -d ${lib} OUTPUT_VARIABLE dynamic ERROR_QUIET)
    string(REGEX MATCH "Library soname: \\[([^]]+)\\]" found "${dynamic}")
    set(soname ${CMAKE_MATCH_1})
    if(soname)
      file(CREATE_LINK ${lib} ${rpl_private_libs}/${soname} SYMBOLIC)
    endif()
  endif()
endforeach()
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${rpl_private_libs})

set(CPACK_PACKAGE_NAME rocm-perf)
set(CPACK_PACKAGE_VENDOR "rocm-perf-lab")
set(CPACK_PACKAGE_CONTACT "rocm-perf-lab maintainers <rocm-perf-lab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU performance tool: profiles, finds the critical path, roofline and bottlenecks (AMD ROCm and NVIDIA CUDA)")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# rocm-perf runs rocprofv3 (AMD) or the application under its own collector (NVIDIA) when present; neither
# is a Debian 12 package, so neither is a dependency.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3, python3-jsonschema")
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_STRIP_FILES ON)
include(CPack)
