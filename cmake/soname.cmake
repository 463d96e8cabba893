# SPDX-License-Identifier: GPL-3.0-or-later
# cgm_soname(OUT LIBRARY): the soname of a shared library (a file, or an
# imported target's file), what the loader searches for: libcusparse.so.12.
# The libraries the program opens on first use (solver/cuda/vendor_libs.c)
# are opened by it, so a run gets the major version the build compiled
# against. Read from the file's dynamic section (objdump -p); without
# objdump, from the name of the file the link resolves to (libX.so.MAJOR...).
function(cgm_soname out lib)
  if(TARGET ${lib})
    get_target_property(file ${lib} IMPORTED_LOCATION)
  else()
    set(file ${lib})
  endif()
  if(NOT file OR NOT EXISTS "${file}")
    message(FATAL_ERROR "cgm_soname: ${lib} names no library file ('${file}')")
  endif()
  file(REAL_PATH "${file}" real)
  set(soname "")
  if(CMAKE_OBJDUMP)
    execute_process(COMMAND ${CMAKE_OBJDUMP} -p "${real}" OUTPUT_VARIABLE dump
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND dump MATCHES "\n[ \t]*SONAME[ \t]+([^ \t\n]+)")
      set(soname ${CMAKE_MATCH_1})
    endif()
  endif()
  if(NOT soname)
    get_filename_component(name "${real}" NAME)
    if(name MATCHES "^(lib.+\\.so\\.[0-9]+)")
      set(soname ${CMAKE_MATCH_1})
    endif()
  endif()
  if(NOT soname)
    message(FATAL_ERROR "cgm_soname: cannot tell the soname of ${real} (no SONAME in objdump -p, "
                        "and the file name has no libX.so.N form)")
  endif()
  set(${out} ${soname} PARENT_SCOPE)
endfunction()
