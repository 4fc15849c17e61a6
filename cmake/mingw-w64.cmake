# Cross-compiling for 64-bit Windows with MinGW-w64 (Debian: gcc-mingw-w64-x86-64),
# running the tests under wine (Debian: wine):
#   cmake -S chapters/02_custom_loop -B build-mingw \
#         --toolchain cmake/mingw-w64.cmake
#   cmake --build build-mingw && ctest --test-dir build-mingw
# TAAL_MINGW_PREFIX picks another triplet, e.g. i686-w64-mingw32 for 32-bit.
set(CMAKE_SYSTEM_NAME Windows)
if(NOT TAAL_MINGW_PREFIX)
  set(TAAL_MINGW_PREFIX x86_64-w64-mingw32)
endif()
if(TAAL_MINGW_PREFIX MATCHES "^i686")
  set(CMAKE_SYSTEM_PROCESSOR x86)
else()
  set(CMAKE_SYSTEM_PROCESSOR AMD64)
endif()
set(CMAKE_C_COMPILER ${TAAL_MINGW_PREFIX}-gcc)
set(CMAKE_RC_COMPILER ${TAAL_MINGW_PREFIX}-windres)
set(CMAKE_FIND_ROOT_PATH /usr/${TAAL_MINGW_PREFIX})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# The programs run under wine where wine is at hand (ctest, the tests of
# the documented output); a Windows machine runs them itself.
if(NOT CMAKE_CROSSCOMPILING_EMULATOR AND NOT CMAKE_HOST_WIN32)
  find_program(TAAL_WINE wine)
  if(TAAL_WINE)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${TAAL_WINE})
  endif()
endif()
