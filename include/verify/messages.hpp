/// @file
/// verify/messages.hpp: the library's version, the code page of every string, and the
/// messages for the end user in their language.

#ifndef VERIFY_MESSAGES_HPP
#define VERIFY_MESSAGES_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include "../verify.h"
#include "detail/call.hpp"

namespace verify {

/// The ABI version of the header this program was compiled with; compare with abi_version().
inline constexpr std::uint32_t header_abi_version = VERIFY_ABI_VERSION;

/// The library version, e.g. "0.2.0". Valid for the life of the program.
[[nodiscard]] inline std::string_view version() noexcept {
    const char *text = verify_version();
    return text != nullptr ? std::string_view(text) : std::string_view();
}

/// The library's ABI version (header_abi_version is the header's).
[[nodiscard]] inline std::uint32_t abi_version() noexcept { return verify_abi_version(); }

/// The code page of every string the library takes and gives, for the whole process
/// (verify_set_code_page): VERIFY_CODE_PAGE_UTF8 (65001, the default), VERIFY_CODE_PAGE_SYSTEM
/// (0) or a Windows code page number. Every std::string and std::string_view of this binding
/// is in it. Set it once, before other calls; throws verify::Error for an unknown one.
inline void set_code_page(std::int32_t code_page) { detail::check_ok(verify_set_code_page(code_page)); }

/// The code page set with set_code_page() (65001, UTF-8, unless changed).
[[nodiscard]] inline std::int32_t code_page() noexcept { return verify_code_page(); }

/// The message for the end user of any result code (verify_code_user_message): short, polite,
/// saying what to do, in `lang` ("zh-CN", "zh-TW", "en", or any language tag or POSIX locale;
/// nullptr or "" for the language of set_language(), by default the user's UI language), in
/// the code page of set_code_page(). Show it for local results and for refusals whose server
/// message is empty; describe() stays the developer's English. Valid for the life of the
/// program.
[[nodiscard]] inline std::string_view user_message(std::int32_t code, const char *lang = nullptr) noexcept {
    const char *text = verify_code_user_message(code, lang);
    return text != nullptr ? std::string_view(text) : std::string_view();
}

/// user_message(to_int(code), lang).
[[nodiscard]] inline std::string_view user_message(Code code, const char *lang = nullptr) noexcept {
    return user_message(to_int(code), lang);
}

/// Sets the language of user_message() for the whole process (verify_set_language): "zh-CN",
/// "zh-TW", "en", or any language tag or POSIX locale; "" goes back to the user's UI language.
/// Throws verify::Error for a tag that is not well formed.
inline void set_language(const std::string &lang) { detail::check_ok(verify_set_language(lang.c_str())); }

/// The language user_message() gives by default: "zh-CN", "zh-TW" or "en". Valid for the life
/// of the program.
[[nodiscard]] inline std::string_view language() noexcept {
    const char *text = verify_language();
    return text != nullptr ? std::string_view(text) : std::string_view();
}

}  // namespace verify

#endif /* VERIFY_MESSAGES_HPP */
