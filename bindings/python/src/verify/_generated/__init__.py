# Generated from the action table (core/src/actions/table.rs) and the code table
# (core/src/codes.rs) by tests/generate/python.rs; do not edit.
# Regenerate: VERIFY_BLESS=1 cargo test --test generated
"""The parts of the package generated from the tables."""
