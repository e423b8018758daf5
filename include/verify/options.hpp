/// @file
/// verify/options.hpp: verify::ClientOptions, the settings of a Client (mirrors, trust, pins,
/// proxy, timeouts, state folder, offline verdicts, a log function).
///
/// Client settings (verify::ClientOptions, the second Client constructor)
///
///   verify::ClientOptions options;                   // empty fields: the library's defaults
///   options.mirrors = {"https://backup.example.com"};
///   options.pins = {"sha256/..."};
///   options.on_log = [](verify::LogLevel level, std::string_view text) { log(level, text); };
///   verify::Client client("https://verify.example.com", app_id, app_key, options);
///
/// - A plain value mapped onto a verify_client_options handle when the client is made:
///   mirrors, trust stores (verify::Trust), extra roots (PEM texts or files), pinned keys,
///   the proxy (verify::Proxy), plain http:// to a host that is not loopback, timeouts, and a
///   log function. TLS verification cannot be turned off.
/// - on_log runs on the thread making a call (a keeper's heartbeats: the keeper's thread),
///   on several threads at once; it never receives a secret. The Client owns it (on the
///   heap, so moving the Client does not move it) and frees it only after the client.

#ifndef VERIFY_OPTIONS_HPP
#define VERIFY_OPTIONS_HPP

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "../verify.h"
#include "detail/call.hpp"
#include "detail/handles.hpp"
#include "enums.hpp"

namespace verify {

/// The function receiving a client's log messages: its level and an English text (borrowed
/// for the call: copy what you keep). It runs on the thread making the call (a keeper's
/// heartbeats: the keeper's thread), so on several threads at once: it must be thread-safe
/// and should return quickly. Exceptions it throws are caught and dropped. It never receives
/// a secret (api password, AppKey, card key, password, token, machine code).
using LogHandler = std::function<void(LogLevel, std::string_view)>;

/// How a client reaches the service (verify_client_options_set_proxy); loopback hosts never
/// go through a proxy.
struct Proxy {
    /// The way (ProxyMode: System, None, Url).
    using Mode = ProxyMode;
    Mode mode = Mode::System;
    /// For Mode::Url: http://, https:// (CONNECT), socks5:// or socks5h://, with an optional
    /// user:password@.
    std::string url;

    [[nodiscard]] static Proxy system() { return Proxy{Mode::System, std::string()}; }
    [[nodiscard]] static Proxy none() { return Proxy{Mode::None, std::string()}; }
    [[nodiscard]] static Proxy with_url(std::string url) { return Proxy{Mode::Url, std::move(url)}; }
};

/// Settings of a Client (the second constructor), a plain value mapped onto a
/// verify_client_options handle when the client is made. Fields left empty or std::nullopt
/// keep the library's defaults: no mirror, Mozilla's roots, the system's proxy settings,
/// plain http:// only to loopback, timeouts 10 s (connect) and 30 s (call), an attempt delay
/// of 250 ms, no fixed address, no state folder, no log.
struct ClientOptions {
    /// Other base URLs of the same service. A new connection races them with the first
    /// (see attempt_delay); the one that connects first is kept; a request that may have
    /// reached a server is never sent to another.
    std::vector<std::string> mirrors;
    /// The trust stores; Trust::None trusts only `root_pems`, `root_files` and `pins`. TLS
    /// verification cannot be turned off.
    std::optional<Trust> trust = std::nullopt;
    /// PEM texts whose certificates are trusted as roots, in addition to the stores.
    std::vector<std::string> root_pems;
    /// PEM files whose certificates are trusted as roots (read when the client is made).
    std::vector<std::string> root_files;
    /// Pinned keys: base64 of the SHA-256 of a DER SubjectPublicKeyInfo of the chain
    /// ("sha256/" prefix accepted); a pinned self-signed certificate needs no CA.
    std::vector<std::string> pins;
    /// The proxy; unset: the system's settings.
    std::optional<Proxy> proxy = std::nullopt;
    /// Allows plain http:// to a host that is not loopback (the api password then travels
    /// readable by anyone on the path).
    bool allow_insecure_http = false;
    /// The connect and whole-call timeouts, each 1..UINT32_MAX ms; when only one is set, the
    /// other is its default (10 s, 30 s).
    std::optional<std::chrono::milliseconds> connect_timeout = std::nullopt;
    std::optional<std::chrono::milliseconds> call_timeout = std::nullopt;
    /// Racing connections (RFC 8305): every address of the name (IPv6 and IPv4 in turn) and
    /// every mirror gets an attempt when the earlier ones have not connected within this
    /// delay; the first to finish TCP and TLS wins. 0..10000 ms; unset: 250 ms.
    std::optional<std::chrono::milliseconds> attempt_delay = std::nullopt;
    /// Fixed addresses for host names, like curl's --resolve: {host, ip} pairs; a listed
    /// name is never looked up in DNS, and TLS still checks it.
    std::vector<std::pair<std::string, std::string>> addresses;
    /// The client's state folder (the remembered winning line and its name's addresses, the
    /// last good verdict): a path, or an empty string for the per-user default; unset:
    /// nothing is written.
    std::optional<std::string> state_folder = std::nullopt;
    /// With a state folder: how long the winning line's addresses (https) stay in use after
    /// they were last seen connecting; a later start connects to them at once beside a fresh
    /// lookup (no wait for a slow name server; TLS still checks the name, fixed addresses
    /// still win). 0: neither remembered nor used; unset: a day.
    std::optional<std::chrono::seconds> remembered_addresses_max_age = std::nullopt;
    /// Offline verdicts (a state folder needed): a login that cannot reach the service
    /// answers from the stored verdict (Reply::offline()) when the server confirmed it less
    /// than this long ago; unset: off. An outage is a failed connection, a timeout, or a reply
    /// that is not the service's (HTTP 5xx such as 502/503/504/522, HTML, empty, cut short,
    /// a captive portal's page); a reply of the service (JSON with a code) never is. In
    /// account mode a wrong password offline is codes::err_offline_password; a state folder
    /// that cannot be written refuses the client (codes::err_state_folder).
    std::optional<std::chrono::seconds> offline_grace = std::nullopt;
    /// A start that never waits long (offline verdicts needed): past this budget a login
    /// whose stored verdict may answer gets it, and the login goes on in the background
    /// (follow it with Client::keep_alive(reply)); unset: no budget.
    std::optional<std::chrono::milliseconds> start_budget = std::nullopt;
    /// How far the local clock may be behind the latest server time seen before offline
    /// verdicts are refused (codes::err_clock_back); unset: 10 minutes.
    std::optional<std::chrono::seconds> clock_tolerance = std::nullopt;
    /// Receives the client's log messages (see LogHandler); empty: no log. The Client keeps
    /// it, at an address that moving the Client does not change, until the client is freed.
    LogHandler on_log;
};

namespace detail {

/// The C log callback of every client with an on_log function.
struct LogTrampoline {
    /// `user_data` is the client's LogHandler. Declared with VERIFY_CALL, as
    /// verify_log_callback is. No exception leaves it.
    static void VERIFY_CALL deliver(void *user_data, std::int32_t level, const char *message) noexcept {
        if (user_data == nullptr) {
            return;
        }
        try {
            const LogHandler &on_log = *static_cast<const LogHandler *>(user_data);
            // Any int32_t is a valid LogLevel: a level of a later library is kept as it is.
            on_log(static_cast<LogLevel>(level),
                   message != nullptr ? std::string_view(message) : std::string_view());
        } catch (...) {
            // Swallowed on purpose (documented on LogHandler): nothing may unwind into C.
        }
    }
};

/// A verify_client_options handle with `options` set, the log callback pointing at
/// `on_log` (which must outlive every client made with it).
inline ClientOptionsPtr client_options(const ClientOptions &options, LogHandler *on_log) {
    verify_client_options *raw = nullptr;
    std::int32_t code = verify_client_options_new(&raw);
    ClientOptionsPtr handle(raw);
    if (code != codes::ok || !handle) {
        raise(code != codes::ok ? code : codes::err_panic);
    }
    for (const std::string &mirror : options.mirrors) {
        check_ok(verify_client_options_add_mirror(handle.get(), arg(mirror, "mirror").c_str()));
    }
    if (options.trust) {
        check_ok(verify_client_options_set_trust(handle.get(), static_cast<std::uint32_t>(*options.trust)));
    }
    for (const std::string &pem : options.root_pems) {
        check_ok(verify_client_options_add_root_pem(handle.get(), arg(pem, "root_pem").c_str()));
    }
    for (const std::string &file : options.root_files) {
        check_ok(verify_client_options_add_root_file(handle.get(), arg(file, "root_file").c_str()));
    }
    for (const std::string &pin : options.pins) {
        check_ok(verify_client_options_add_pin(handle.get(), arg(pin, "pin").c_str()));
    }
    if (options.proxy) {
        const bool with_url = options.proxy->mode == Proxy::Mode::Url;
        std::string url = arg(options.proxy->url, "proxy url");
        check_ok(verify_client_options_set_proxy(handle.get(), static_cast<std::int32_t>(options.proxy->mode),
                                                 with_url ? url.c_str() : nullptr));
    }
    if (options.allow_insecure_http) {
        check_ok(verify_client_options_allow_insecure_http(handle.get(), 1));
    }
    if (options.connect_timeout || options.call_timeout) {
        std::uint32_t connect_ms =
            to_ms(options.connect_timeout.value_or(std::chrono::seconds(10)), "timeout `connect`");
        std::uint32_t call_ms = to_ms(options.call_timeout.value_or(std::chrono::seconds(30)), "timeout `call`");
        check_ok(verify_client_options_set_timeouts(handle.get(), connect_ms, call_ms));
    }
    if (options.attempt_delay) {
        check_ok(verify_client_options_set_attempt_delay(handle.get(),
                                                         to_ms(*options.attempt_delay, "attempt_delay", 0)));
    }
    for (const auto &[host, ip] : options.addresses) {
        check_ok(verify_client_options_add_address(handle.get(), arg(host, "address host").c_str(),
                                                   arg(ip, "address ip").c_str()));
    }
    if (options.state_folder) {
        const std::string folder = arg(*options.state_folder, "state_folder");
        check_ok(verify_client_options_set_state_folder(handle.get(), folder.empty() ? nullptr : folder.c_str()));
    }
    if (options.remembered_addresses_max_age) {
        check_ok(verify_client_options_set_remembered_addresses_max_age(
            handle.get(),
            to_seconds(*options.remembered_addresses_max_age, "remembered_addresses_max_age")));
    }
    if (options.offline_grace) {
        check_ok(verify_client_options_set_offline_grace(handle.get(), to_seconds(*options.offline_grace, "offline_grace")));
    }
    if (options.start_budget) {
        check_ok(verify_client_options_set_start_budget(handle.get(), to_ms(*options.start_budget, "start_budget", 0)));
    }
    if (options.clock_tolerance) {
        check_ok(
            verify_client_options_set_clock_tolerance(handle.get(), to_seconds(*options.clock_tolerance, "clock_tolerance")));
    }
    if (on_log != nullptr && *on_log) {
        check_ok(verify_client_options_set_log(handle.get(), &LogTrampoline::deliver,
                                               static_cast<void *>(on_log)));
    }
    return handle;
}

}  // namespace detail

}  // namespace verify

#endif /* VERIFY_OPTIONS_HPP */
