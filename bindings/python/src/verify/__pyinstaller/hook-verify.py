"""PyInstaller hook of the ``verify`` package: the native library (libverify.so, verify.dll,
libverify.dylib) goes into the frozen program's ``verify`` folder, where the package looks
for it first."""

from PyInstaller.utils.hooks import collect_dynamic_libs

binaries = collect_dynamic_libs("verify")
