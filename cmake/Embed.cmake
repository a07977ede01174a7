# kdelay_embed(OUT FILE...) writes a C++ file that defines
# kdelay::embedded_files(): every FILE's bytes under its path below its top
# folder of the source tree (bpf/delay/core.bpf.h: delay/core.bpf.h).
function(kdelay_embed out)
  set(names "")
  foreach(f ${ARGN})
    file(RELATIVE_PATH n ${CMAKE_SOURCE_DIR} ${f})
    list(APPEND names ${n})
  endforeach()
  string(REPLACE ";" "|" files "${ARGN}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} "-DFILES=${files}" -P ${CMAKE_SOURCE_DIR}/cmake/EmbedWrite.cmake
    DEPENDS ${ARGN} ${CMAKE_SOURCE_DIR}/cmake/EmbedWrite.cmake
    COMMENT "Embedding ${names}"
    VERBATIM)
endfunction()
