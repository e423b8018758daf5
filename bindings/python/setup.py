"""The wheel carries a native library (not a Python extension): setuptools is told so, so the
wheel is a platform wheel (Root-Is-Purelib: false). scripts/build-python.sh then tags it
py3-none-PLATFORM: one wheel for every CPython 3.8+, since ctypes needs no ABI of its own."""

from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True


setup(distclass=BinaryDistribution)
