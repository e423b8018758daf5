/// @file
/// verify.hpp: header-only C++17 binding of the verify licensing client, over verify.h (ABI 2).
///
///   #include "verify.hpp"          // also includes verify.h; link libverify as for C
///
///   verify::Client client("http://127.0.0.1:8080", "10001", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345");
///   try {
///       verify::CardLogin login = client.single_login(card, verify::machine_code("10001")).value();
///       use(login.token.value(), login.expire_at);    // expire_at: std::optional<verify::Time>
///   } catch (const verify::Refused &refused) {         // the server refused: 1004, 1006, ...
///       show(refused.code(), refused.message(), refused.remark().value_or(""));
///   }                                                  // verify::Error: no answer (network, ...)
///
///   auto result = client.single_login(card, mac);      // or without exceptions
///   if (!result) { show(result.error().code, result.error().remark.value_or("")); }
///
/// std::error_code: verify::Code (the codes as an enum class) converts to a std::error_code of
/// verify::category(); Error::error_code() gives one for a failure.
///
/// One header per topic, in include/verify/ (this file includes them all):
///   error.hpp     verify::Error, Refusal, Refused, describe(), the std::error_category
///   format.hpp    operator<<, std::formatter and fmt::formatter of codes, states, events, errors
///   codes.hpp     the codes: verify::codes::* constants, enum class verify::Code, and
///                 is_success(), is_configuration_refusal(), keeps_offline_verdict() (generated)
///   enums.hpp     the enums of verify.h: SessionKind, EventKind, KeeperState, LogLevel, Trust,
///                 ProxyMode, CodePage, the machine code's and the doctor's (generated)
///   messages.hpp  version(), the code page, user_message() and the language
///   time.hpp      verify::Time and the service's times (UTC+08:00)
///   reply.hpp     verify::Reply, read by JSON Pointer; pointer(), field()
///   result.hpp    verify::Result<T> and Answer
///   results.hpp   the typed results: CardLogin, UserSession, Heartbeat, ... (generated)
///   options.hpp   verify::ClientOptions, Proxy, Trust, the log
///   keeper.hpp    verify::Keeper, KeeperOptions, Event, KeeperStatus, SessionKind
///   cancel.hpp    verify::CancelToken, CancelScope (a token or a std::stop_token cancels calls)
///   machine.hpp   machine_code(), machine_check(), machine_virtual()
///   actions.hpp   the action methods of Client (generated)
///   client.hpp    verify::Client: ownership, strings, threads, what throws
///   diagnose.hpp  verify::diagnose(), the doctor
///   detail/       the binding's internals (handles, argument checks)
/// Each says at its top what its types promise. Include this file (or one topic's header):
/// the folder sits next to verify.h, and the headers include each other by relative paths.

#ifndef VERIFY_HPP
#define VERIFY_HPP

#include "verify.h"

static_assert(VERIFY_ABI_VERSION == 2, "verify.hpp is written for ABI 2 of verify.h");

#include "verify/cancel.hpp"
#include "verify/client.hpp"
#include "verify/codes.hpp"
#include "verify/diagnose.hpp"
#include "verify/enums.hpp"
#include "verify/error.hpp"
#include "verify/format.hpp"
#include "verify/keeper.hpp"
#include "verify/machine.hpp"
#include "verify/messages.hpp"
#include "verify/options.hpp"
#include "verify/reply.hpp"
#include "verify/result.hpp"
#include "verify/results.hpp"
#include "verify/time.hpp"

#endif /* VERIFY_HPP */
