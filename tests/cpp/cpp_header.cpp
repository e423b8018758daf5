/*
 * cpp_header.cpp: verify.hpp on its own, for the compile-only checks of tests/cpp/demo.rs:
 * it compiles under the strict warnings a host may well use (-Wshadow -Wconversion
 * -Wsign-conversion -Wold-style-cast -Wnon-virtual-dtor, as errors), and under a
 * VERIFY_CALL that is not the default convention (the binding's callback must be declared
 * with it to convert to verify_event_callback). Nothing here runs.
 */

#include "verify.hpp"
#include "verify.hpp" // the include guard makes the second inclusion harmless

#include <type_traits>

// The binding's callbacks have the types of the C callbacks, VERIFY_CALL included.
static_assert(std::is_convertible_v<decltype(&verify::detail::EventTrampoline::deliver),
                                    verify_event_callback>,
              "the event trampoline is a verify_event_callback");
static_assert(
    std::is_convertible_v<decltype(&verify::detail::LogTrampoline::deliver), verify_log_callback>,
    "the log trampoline is a verify_log_callback");

int main()
{
    return verify::header_abi_version == VERIFY_ABI_VERSION ? 0 : 1;
}
