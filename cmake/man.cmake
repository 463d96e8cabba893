# Man pages cgmodel(1), cgmodel-CMD(1) and the bash and zsh completions,
# generated from the command line's option tables (`cgmodel __options`) and
# the prose of docs/cli.md (scripts/gen_man.py, Python's standard library)
# into the build tree and installed with the rest. Without python3 they are
# left out, with a note.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT Python3_Interpreter_FOUND)
  message(STATUS "cgmodel: no python3: man pages and shell completions are not generated")
  return()
endif()
set(CGM_MAN_DIR ${PROJECT_BINARY_DIR}/man)
add_custom_command(OUTPUT ${CGM_MAN_DIR}/stamp
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${CGM_MAN_DIR}/man1 ${CGM_MAN_DIR}/completions
  COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/gen_man.py $<TARGET_FILE:cgmodel>
          ${PROJECT_SOURCE_DIR}/docs/cli.md ${CGM_MAN_DIR} ${PROJECT_VERSION}
  COMMAND ${CMAKE_COMMAND} -E touch ${CGM_MAN_DIR}/stamp
  DEPENDS cgmodel ${PROJECT_SOURCE_DIR}/docs/cli.md ${PROJECT_SOURCE_DIR}/scripts/gen_man.py
  COMMENT "Man pages and completions from the option tables and docs/cli.md" VERBATIM)
add_custom_target(cgmodel_man ALL DEPENDS ${CGM_MAN_DIR}/stamp)
install(DIRECTORY ${CGM_MAN_DIR}/man1 DESTINATION ${CMAKE_INSTALL_MANDIR})
install(FILES ${CGM_MAN_DIR}/completions/cgmodel
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${CGM_MAN_DIR}/completions/_cgmodel DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
