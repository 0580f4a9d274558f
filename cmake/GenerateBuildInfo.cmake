# Run at every build (cmake -P) so the commit id is current without
# reconfiguring; configure_file rewrites the output only when it changes, so
# an unchanged commit rebuilds nothing.
execute_process(
  COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE SION_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE _rev_status ERROR_QUIET)
if(NOT _rev_status EQUAL 0 OR SION_COMMIT STREQUAL "")
  set(SION_COMMIT "unknown")
else()
  execute_process(
    COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
    OUTPUT_VARIABLE _dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT _dirty STREQUAL "")
    string(APPEND SION_COMMIT "+dirty")
  endif()
endif()
configure_file("${INPUT}" "${OUTPUT}" @ONLY)
