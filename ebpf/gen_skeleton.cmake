# cmake -DBPFTOOL= -DOBJECT= -DNAME= -DOUTPUT= -P gen_skeleton.cmake
execute_process(COMMAND ${BPFTOOL} gen skeleton ${OBJECT} name ${NAME}
                OUTPUT_FILE ${OUTPUT}.tmp ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE ${OUTPUT}.tmp)
  message(FATAL_ERROR "bpftool gen skeleton ${OBJECT} failed: ${err}")
endif()
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
