# cmake -DBPFTOOL= -DBTF= -DFALLBACK= -DOUTPUT= -P gen_vmlinux.cmake
# Dumps the kernel's BTF as C; when that cannot be done (no BTF, no bpftool) the
# committed copy is used and the build says so.
get_filename_component(out_dir ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${out_dir})
set(tmp ${OUTPUT}.tmp)
set(rc 1)
if(EXISTS ${BTF})
  execute_process(COMMAND ${BPFTOOL} btf dump file ${BTF} format c
                  OUTPUT_FILE ${tmp} ERROR_VARIABLE err RESULT_VARIABLE rc)
endif()
if(rc EQUAL 0)
  file(RENAME ${tmp} ${OUTPUT})
  message(STATUS "vmlinux.h generated from ${BTF}")
else()
  file(REMOVE ${tmp})
  configure_file(${FALLBACK} ${OUTPUT} COPYONLY)
  message(STATUS "vmlinux.h: ${BTF} unusable (rc=${rc} ${err}); using committed ${FALLBACK}")
endif()
