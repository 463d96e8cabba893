# The installed package (label e2e): cmake --install into a temporary prefix,
# then a downstream program built with find_package(cgmodel) and with
# pkg-config (tests/downstream). Not in a sanitized tree: its libraries need
# the sanitizer runtime in every program that links them.
if(NOT CGMODEL_SANITIZE)
  add_test(NAME e2e_downstream
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/downstream/test_downstream.sh
                   ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${CMAKE_C_COMPILER})
  set_tests_properties(e2e_downstream PROPERTIES LABELS e2e TIMEOUT 300)
endif()
# The man pages against every command's --help (tests/e2e/test_man.sh).
if(TEST e2e_test_man)
  set_tests_properties(e2e_test_man PROPERTIES ENVIRONMENT CGM_MAN_DIR=${PROJECT_BINARY_DIR}/man)
endif()
