# weft_add_library_with_lean_twin(<name> SOURCES ... [PUBLIC ...] [PRIVATE ...] [PUBLIC_DEFS ...] [PRIVATE_DEFS ...])
#
# Builds <name> for the daemons and tests, and <name>_lean from the same sources for
# weft-agent: the one-shot `weft-agent probe` is timed against ibnetdiscover, and half of
# its start-up went to the dynamic loader mapping the C++ runtime, spdlog, fmt and libbpf.
# A lean twin uses header-only fmt, the stderr log backend (weft_common_lean) and the
# static eBPF libraries, so weft-agent, linked with the static C++ runtime, loads libc and
# libibumad only. In the library lists, weft_common, fmt::fmt, spdlog::spdlog and
# weft_ebpf_skeletons are swapped for their lean counterparts; everything else is shared.
function(weft_add_library_with_lean_twin name)
  cmake_parse_arguments(L "" "" "SOURCES;PUBLIC;PRIVATE;PUBLIC_DEFS;PRIVATE_DEFS" ${ARGN})
  set(lean_of_weft_common weft_common_lean)
  set(lean_of_fmt::fmt fmt::fmt-header-only)
  set(lean_of_spdlog::spdlog "")
  set(lean_of_weft_ebpf_skeletons weft_ebpf_skeletons_static)
  foreach(variant "" "_lean")
    set(target ${name}${variant})
    add_library(${target} ${L_SOURCES})
    foreach(scope PUBLIC PRIVATE)
      set(libs ${L_${scope}})
      if(variant STREQUAL "_lean")
        set(libs "")
        foreach(lib ${L_${scope}})
          if(DEFINED lean_of_${lib})
            list(APPEND libs ${lean_of_${lib}})
          else()
            list(APPEND libs ${lib})
          endif()
        endforeach()
      endif()
      if(libs)
        target_link_libraries(${target} ${scope} ${libs})
      endif()
    endforeach()
    if(L_PUBLIC_DEFS)
      target_compile_definitions(${target} PUBLIC ${L_PUBLIC_DEFS})
    endif()
    if(L_PRIVATE_DEFS)
      target_compile_definitions(${target} PRIVATE ${L_PRIVATE_DEFS})
    endif()
  endforeach()
endfunction()
