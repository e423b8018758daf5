#!/usr/bin/env bash
# package.sh: assemble dist/verify-<version>-<target>/, a folder a C, C++ or C# project can
# consume without the source tree:
#
#   include/verify.h, include/verify.hpp
#   lib/libverify.so, lib/libverify.a           (verify.dll + verify.dll.lib, verify.lib on Windows)
#   lib/pkgconfig/verify.pc                     pkg-config --cflags --libs verify
#   lib/cmake/verify/verifyConfig.cmake         find_package(verify) -> verify::verify, verify::verify_static
#   bindings/csharp/Verify.cs
#   README.md
#
# Usage: scripts/package.sh [--profile release|debug] [--out DIR] [--no-build] [--from DIR]
#   --profile   Cargo profile to build and package (default: release)
#   --out       parent folder of the package (default: dist)
#   --no-build  package what target/<profile> already holds
#   --from DIR  take libverify.so and libverify.a from DIR (implies --no-build; the tests
#               pass target/debug/deps, where `cargo test` writes them)
# Prints the package folder's path as its last line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

profile=release
out=dist
build=1
from=""
while [ "$#" -gt 0 ]; do
    case "$1" in
        --profile) profile=${2:?--profile needs a value}; shift 2 ;;
        --out) out=${2:?--out needs a value}; shift 2 ;;
        --no-build) build=0; shift ;;
        --from) from=${2:?--from needs a value}; build=0; shift 2 ;;
        *) echo "package.sh: unknown argument $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done
case "$profile" in
    release) target_dir=${CARGO_TARGET_DIR:-target}/release; cargo_profile=release ;;
    debug) target_dir=${CARGO_TARGET_DIR:-target}/debug; cargo_profile=dev ;;
    *) echo "package.sh: --profile is release or debug" >&2; exit 2 ;;
esac

if [ -n "$from" ]; then
    target_dir=$from
fi

if [ "$build" = 1 ]; then
    cargo build --profile "$cargo_profile" -p verify
fi

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
triple=$(rustc -vV | sed -n 's/^host: //p')
pkg="$out/verify-$version-$triple"

for file in libverify.so libverify.a; do
    if [ ! -f "$target_dir/$file" ]; then
        echo "package.sh: $target_dir/$file is missing: build first (or drop --no-build)" >&2
        exit 1
    fi
done

rm -rf "$pkg"
mkdir -p "$pkg/include" "$pkg/lib/pkgconfig" "$pkg/lib/cmake/verify" "$pkg/bindings/csharp"
cp include/verify.h include/verify.hpp "$pkg/include/"
cp "$target_dir/libverify.so" "$target_dir/libverify.a" "$pkg/lib/"
cp bindings/csharp/Verify.cs "$pkg/bindings/csharp/"
cp README.md "$pkg/README.md"

cat > "$pkg/lib/pkgconfig/verify.pc" <<PC
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: verify
Description: Client of the licensing verification service (C ABI)
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lverify
Libs.private: -lpthread -ldl -lm
PC

cat > "$pkg/lib/cmake/verify/verifyConfig.cmake" <<'CMAKE'
# find_package(verify CONFIG): imported targets of this package folder.
#   verify::verify         the shared library (libverify.so / verify.dll)
#   verify::verify_static  the static library, with the system libraries it needs
get_filename_component(_verify_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET verify::verify)
  add_library(verify::verify SHARED IMPORTED)
  if(WIN32)
    set_target_properties(verify::verify PROPERTIES
      IMPORTED_LOCATION "${_verify_prefix}/lib/verify.dll"
      IMPORTED_IMPLIB "${_verify_prefix}/lib/verify.dll.lib")
  else()
    set_target_properties(verify::verify PROPERTIES
      IMPORTED_LOCATION "${_verify_prefix}/lib/${CMAKE_SHARED_LIBRARY_PREFIX}verify${CMAKE_SHARED_LIBRARY_SUFFIX}"
      IMPORTED_SONAME "${CMAKE_SHARED_LIBRARY_PREFIX}verify${CMAKE_SHARED_LIBRARY_SUFFIX}")
  endif()
  set_target_properties(verify::verify PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_verify_prefix}/include")
endif()

if(NOT TARGET verify::verify_static)
  add_library(verify::verify_static STATIC IMPORTED)
  set_target_properties(verify::verify_static PROPERTIES
    IMPORTED_LOCATION "${_verify_prefix}/lib/${CMAKE_STATIC_LIBRARY_PREFIX}verify${CMAKE_STATIC_LIBRARY_SUFFIX}"
    INTERFACE_INCLUDE_DIRECTORIES "${_verify_prefix}/include")
  if(WIN32)
    set_property(TARGET verify::verify_static PROPERTY
      INTERFACE_LINK_LIBRARIES ws2_32 userenv ntdll bcrypt advapi32)
  else()
    set_property(TARGET verify::verify_static PROPERTY INTERFACE_LINK_LIBRARIES pthread dl m)
  endif()
endif()

set(verify_FOUND TRUE)
CMAKE

cat > "$pkg/lib/cmake/verify/verifyConfigVersion.cmake" <<CMAKE
# Compatible with requests for this version or an older one of the same major version.
set(PACKAGE_VERSION "$version")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  string(REGEX MATCH "^[0-9]+" _want_major "\${PACKAGE_FIND_VERSION}")
  string(REGEX MATCH "^[0-9]+" _have_major "\${PACKAGE_VERSION}")
  if(_want_major STREQUAL _have_major OR "\${PACKAGE_FIND_VERSION}" STREQUAL "")
    set(PACKAGE_VERSION_COMPATIBLE TRUE)
  else()
    set(PACKAGE_VERSION_COMPATIBLE FALSE)
  endif()
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
CMAKE

echo "package.sh: assembled $pkg"
echo "$pkg"
