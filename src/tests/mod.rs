//! Unit tests of the C ABI, calling the exported functions as a C host does.
