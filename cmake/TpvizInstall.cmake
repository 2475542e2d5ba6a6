# Install layout helpers (GNU directories: bin/, share/applications/, share/icons/, share/man/).
include(GNUInstallDirs)

find_program(TPVIZ_HELP2MAN help2man)
find_program(TPVIZ_GZIP gzip)
if(NOT TPVIZ_HELP2MAN OR NOT TPVIZ_GZIP)
  message(WARNING "help2man or gzip not found (Debian packages help2man, gzip): no man pages are built or installed")
endif()

# tpviz_man_page(<target> <summary>): builds <target>.1 from `<target> --help` with help2man
# (NAME line `<target> - <summary>`, version PROJECT_VERSION) and installs it gzipped, as Debian
# keeps man pages, in man1.
function(tpviz_man_page target summary)
  if(NOT TPVIZ_HELP2MAN OR NOT TPVIZ_GZIP)
    return()
  endif()
  set(page ${CMAKE_CURRENT_BINARY_DIR}/${target}.1)
  add_custom_command(
    OUTPUT ${page}.gz
    COMMAND ${TPVIZ_HELP2MAN} --no-info --no-discard-stderr --name=${summary}
            --version-string=${PROJECT_VERSION} --output=${page} $<TARGET_FILE:${target}>
    COMMAND ${TPVIZ_GZIP} -9 -n -f ${page}
    DEPENDS ${target}
    COMMENT "Man page of ${target}"
    VERBATIM)
  add_custom_target(${target}-man ALL DEPENDS ${page}.gz)
  install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endfunction()
