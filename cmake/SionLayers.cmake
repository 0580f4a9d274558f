# One CMake library per layer (docs/architecture.md). sion_layer() creates the
# library sion_<name> (alias sion::<name>), checks that every layer it links is
# a lower one in src/layers.txt, and registers the layer's tests.

file(STRINGS "${PROJECT_SOURCE_DIR}/src/layers.txt" _sion_layer_lines)
set(SION_LAYER_ORDER "")
foreach(_line IN LISTS _sion_layer_lines)
  string(STRIP "${_line}" _line)
  if(_line STREQUAL "" OR _line MATCHES "^#")
    continue()
  endif()
  list(APPEND SION_LAYER_ORDER "${_line}")
endforeach()

function(_sion_layer_rank name out)
  list(FIND SION_LAYER_ORDER "${name}" _rank)
  if(_rank EQUAL -1)
    message(FATAL_ERROR "layer '${name}' is not listed in src/layers.txt")
  endif()
  set(${out} ${_rank} PARENT_SCOPE)
endfunction()

# sion_layer(<name> SOURCES ... [LAYERS lower layers...] [LIBS external...] [PRIVATE_LIBS ...])
function(sion_layer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LAYERS;LIBS;PRIVATE_LIBS" ${ARGN})
  _sion_layer_rank(${name} _own)
  set(_deps "")
  foreach(_dep IN LISTS ARG_LAYERS)
    _sion_layer_rank(${_dep} _dep_rank)
    if(NOT _dep_rank LESS _own)
      message(FATAL_ERROR "layer '${name}' may not link '${_dep}': it is not below it in src/layers.txt")
    endif()
    list(APPEND _deps sion::${_dep})
  endforeach()
  add_library(sion_${name} STATIC ${ARG_SOURCES})
  add_library(sion::${name} ALIAS sion_${name})
  target_include_directories(sion_${name} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include")
  target_link_libraries(sion_${name} PUBLIC ${_deps} ${ARG_LIBS} PRIVATE sion_warnings ${ARG_PRIVATE_LIBS})
  set_property(GLOBAL APPEND PROPERTY SION_LAYERS_DEFINED ${name})
endfunction()

# sion_layer_tests(<name> SOURCES ... [LIBS ...] [TIMEOUT <seconds>]): one
# GoogleTest binary per layer, linking only that layer (and through it the
# layers below); TIMEOUT bounds each of its tests under ctest.
function(sion_layer_tests name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT SION_BUILD_TESTS)
    return()
  endif()
  add_executable(sion_${name}_tests ${ARG_SOURCES})
  target_link_libraries(sion_${name}_tests PRIVATE sion::${name} ${ARG_LIBS} GTest::gtest_main sion_warnings)
  target_compile_definitions(sion_${name}_tests PRIVATE
    SION_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  set(timeout)
  if(ARG_TIMEOUT)
    set(timeout TIMEOUT ${ARG_TIMEOUT})
  endif()
  gtest_discover_tests(sion_${name}_tests
    TEST_PREFIX "${name}."
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "unit;${name}" ${timeout})
endfunction()

# sion_known_answers_reference(<layer>): the layer's
# tests/known_answers_reference.py, which recomputes the known answers of its
# docs from the documented bytes with Python's hashlib, as the test
# <layer>.known_answers_reference.
function(sion_known_answers_reference name)
  if(NOT SION_BUILD_TESTS)
    return()
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  add_test(NAME ${name}.known_answers_reference
    COMMAND ${Python3_EXECUTABLE} "${CMAKE_CURRENT_SOURCE_DIR}/tests/known_answers_reference.py" "${PROJECT_SOURCE_DIR}")
  set_tests_properties(${name}.known_answers_reference PROPERTIES LABELS "unit;${name}")
endfunction()

# sion_fuzz_target(<name> SOURCE <file> LAYER <layer> [CORPUS_TOOL <file>]
#                  [CORPUS_FROM_SOURCE] [INCLUDES <dirs>]): a libFuzzer binary
# fuzz_<name>, built only with SION_FUZZ=ON (clang). The corpus tool,
# corpus_<name>, writes the seed corpus into the folder it is given
# (scripts/fuzz): either its own CORPUS_TOOL file, or with
# CORPUS_FROM_SOURCE the fuzz source itself compiled with
# SION_FUZZ_CORPUS_TOOL defined, so one file holds both.
function(sion_fuzz_target name)
  cmake_parse_arguments(ARG "CORPUS_FROM_SOURCE" "SOURCE;LAYER;CORPUS_TOOL" "INCLUDES" ${ARGN})
  if(NOT SION_FUZZ)
    return()
  endif()
  add_executable(fuzz_${name} ${ARG_SOURCE})
  target_link_libraries(fuzz_${name} PRIVATE sion::${ARG_LAYER} sion_warnings)
  target_include_directories(fuzz_${name} PRIVATE ${ARG_INCLUDES})
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  set_target_properties(fuzz_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fuzz")
  if(ARG_CORPUS_FROM_SOURCE)
    set(ARG_CORPUS_TOOL ${ARG_SOURCE})
  endif()
  if(ARG_CORPUS_TOOL)
    add_executable(corpus_${name} ${ARG_CORPUS_TOOL})
    target_link_libraries(corpus_${name} PRIVATE sion::${ARG_LAYER} sion_warnings)
    target_include_directories(corpus_${name} PRIVATE ${ARG_INCLUDES})
    target_compile_definitions(corpus_${name} PRIVATE SION_FUZZ_CORPUS_TOOL)
    set_target_properties(corpus_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/fuzz")
  endif()
endfunction()
