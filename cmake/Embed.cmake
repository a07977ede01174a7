# kdelay_embed(OUT FILE...) writes a C++ file that defines
# kdelay::embedded_files(): every FILE's bytes under its base name.
function(kdelay_embed out)
  set(names "")
  foreach(f ${ARGN})
    get_filename_component(n ${f} NAME)
    list(APPEND names ${n})
  endforeach()
  string(REPLACE ";" "|" files "${ARGN}")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DFILES=${files}" -P ${CMAKE_SOURCE_DIR}/cmake/EmbedWrite.cmake
    DEPENDS ${ARGN} ${CMAKE_SOURCE_DIR}/cmake/EmbedWrite.cmake
    COMMENT "Embedding ${names}"
    VERBATIM)
endfunction()
