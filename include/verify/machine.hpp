/// @file
/// verify/machine.hpp: the machine code (v1 and v2), why it is what it is, and whether the
/// machine looks virtual.
///
/// Machine code: verify::machine_code(salt) is 32 uppercase hex characters, the same on every
/// call and in every process on this machine (see verify_machine_code in verify.h).
/// verify::machine_code(salt, MachineVersion::V2, folder) is machine code v2; machine_check()
/// says for each component whether it matches the stored one; machine_virtual() whether the
/// machine looks virtual (docs/machine-code.md).

#ifndef VERIFY_MACHINE_HPP
#define VERIFY_MACHINE_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "../verify.h"
#include "detail/call.hpp"
#include "enums.hpp"

namespace verify {

/// The machine code of this machine for `salt` (one per program, such as its AppId; may be
/// empty): 32 uppercase hex characters, the same on every call and in every process. Throws
/// verify::Error on failure (a NUL in `salt`; codes::err_system when no machine identity can
/// be read or stored).
[[nodiscard]] inline std::string machine_code(std::string_view salt) {
    std::string s = detail::arg(salt, "salt");
    char out[VERIFY_MACHINE_CODE_LEN + 1] = {};
    detail::check_ok(verify_machine_code(s.c_str(), out, sizeof out));
    return std::string(out);
}

/// The machine code of `version` for `salt`; v2 keeps it in `state_folder` (empty: the
/// per-user default), v1 ignores it. Throws verify::Error on failure (see
/// verify_machine_code_ex).
[[nodiscard]] inline std::string machine_code(std::string_view salt, MachineVersion version,
                                std::string_view state_folder = {}) {
    std::string s = detail::arg(salt, "salt");
    std::string folder = detail::arg(state_folder, "state_folder");
    char out[VERIFY_MACHINE_CODE_LEN + 1] = {};
    detail::check_ok(verify_machine_code_ex(s.c_str(), static_cast<std::int32_t>(version),
                                            folder.empty() ? nullptr : folder.c_str(), out,
                                            sizeof out));
    return std::string(out);
}

/// One component of a MachineCheck: what it is and whether it matches the stored one, never
/// its value. Later versions may add kinds and states (kept as their numbers: `name` and
/// `state_name` say "unknown" then).
struct MachineComponent {
    MachineComponentKind kind = MachineComponentKind::BoardUuid;
    std::string name;
    ComponentState state = ComponentState::Matches;
    std::string state_name;
    std::int32_t weight = 0;
};

/// Machine code v2 and why it is what it is ("why did it change"); `note` says what went wrong
/// with the store (empty when nothing did).
struct MachineCheck {
    std::string code;
    MachineOutcome outcome = MachineOutcome::Issued;
    std::int32_t score = 0;
    std::vector<MachineComponent> components;
    std::string note;
};

/// Machine code v2 for `salt` with its explanation: issues, keeps and stores the code as
/// machine_code(salt, MachineVersion::V2, state_folder) does (verify_machine_check_new).
/// Throws verify::Error on failure.
[[nodiscard]] inline MachineCheck machine_check(std::string_view salt, std::string_view state_folder = {}) {
    std::string s = detail::arg(salt, "salt");
    std::string folder = detail::arg(state_folder, "state_folder");
    verify_machine_check *raw = nullptr;
    detail::check_ok(verify_machine_check_new(s.c_str(), folder.empty() ? nullptr : folder.c_str(), &raw));
    std::unique_ptr<verify_machine_check, void (*)(verify_machine_check *)> owned(raw, [](verify_machine_check *c) {
        verify_machine_check_free(c);
    });
    MachineCheck check;
    const char *text = nullptr;
    verify_machine_check_code(raw, &text);
    check.code = detail::copy(text);
    std::int32_t outcome = 0;
    verify_machine_check_outcome(raw, &outcome);
    /// Any int32_t is a valid MachineOutcome: a value of a later library is kept as it is.
    check.outcome = static_cast<MachineOutcome>(outcome);
    verify_machine_check_score(raw, &check.score);
    if (verify_machine_check_note(raw, &text) == 0) {
        check.note = detail::copy(text);
    }
    std::size_t count = 0;
    verify_machine_check_count(raw, &count);
    for (std::size_t i = 0; i < count; ++i) {
        MachineComponent component;
        std::int32_t kind = 0;
        std::int32_t state = 0;
        if (verify_machine_check_component(raw, i, &kind, &state, &component.weight) != 0) {
            break;
        }
        component.kind = static_cast<MachineComponentKind>(kind);
        component.state = static_cast<ComponentState>(state);
        component.name = detail::copy(verify_machine_component_name(kind));
        component.state_name = detail::copy(verify_machine_state_name(state));
        check.components.push_back(std::move(component));
    }
    return check;
}

/// One sign of virtualisation: what it is, and `detail`, what was seen (a vendor string, a file
/// name; never an identity).
struct VirtualSign {
    VirtualSignKind kind = VirtualSignKind::HypervisorBit;
    std::string detail;
};

/// Whether this machine looks virtual or containerised, and what was seen. It only reports:
/// the host decides what it means for its licence.
struct MachineVirtual {
    bool looks_virtual = false;
    std::vector<VirtualSign> signs;
};

/// Reads the signs of virtualisation (verify_machine_virtual_new). Throws verify::Error on
/// failure.
[[nodiscard]] inline MachineVirtual machine_virtual() {
    verify_machine_virtual *raw = nullptr;
    detail::check_ok(verify_machine_virtual_new(&raw));
    std::unique_ptr<verify_machine_virtual, void (*)(verify_machine_virtual *)> owned(
        raw, [](verify_machine_virtual *v) { verify_machine_virtual_free(v); });
    MachineVirtual seen;
    std::int32_t looks = 0;
    verify_machine_virtual_looks_virtual(raw, &looks);
    seen.looks_virtual = looks != 0;
    std::size_t count = 0;
    verify_machine_virtual_count(raw, &count);
    for (std::size_t i = 0; i < count; ++i) {
        VirtualSign sign;
        std::int32_t kind = 0;
        const char *detail = nullptr;
        if (verify_machine_virtual_sign(raw, i, &kind, &detail) != 0) {
            break;
        }
        sign.kind = static_cast<VirtualSignKind>(kind);
        sign.detail = detail::copy(detail);
        seen.signs.push_back(std::move(sign));
    }
    return seen;
}

}  // namespace verify

#endif /* VERIFY_MACHINE_HPP */
