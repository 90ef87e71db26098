#!/bin/sh
# Compiler launcher for acclab_objects: GCC appends -fopt-info notes to their file, so each
# compile starts that file empty and the notes describe the current source only.
for arg in "$@"; do
  case $arg in
    -fopt-info-*=*) : > "${arg#*=}" ;;
  esac
done
exec "$@"
