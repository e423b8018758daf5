/*
 * verify/diagnose.hpp: the doctor, verify::diagnose(): every step a login depends on, checked
 * with the program's settings (given, or a Client's own: verify::diagnose(client, ...)), and
 * its report, whose first line names the cause, what to do and who acts.
 */

#ifndef VERIFY_DIAGNOSE_HPP
#define VERIFY_DIAGNOSE_HPP

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include "../verify.h"
#include "cancel.hpp"
#include "client.hpp"
#include "detail/call.hpp"
#include "options.hpp"

namespace verify {

/* One step of the doctor's report: what it checked, how it went, its stable key (such as
 * "tls.pin_mismatch" or "init.1011", for messages in another language), its English
 * sentence for developers (`message`) and its sentence in the process's language (`text`). */
struct DiagnosisStep {
    DiagnosisStepKind kind = DiagnosisStepKind::Options;
    Verdict verdict = Verdict::Pass;
    std::string key;
    std::string message;
    std::string text;
};

/* A cause the doctor found (a step that warned or failed and follows from no other): the
 * index of its step in Diagnosis::steps, who acts on it, its key and its sentence in the
 * process's language (what is wrong and what to do). */
struct DiagnosisCause {
    std::size_t step = 0;
    DiagnosisActor actor = DiagnosisActor::None;
    std::string key;
    std::string sentence;
};

/* The doctor's report, copied out of the library: the worst verdict, every step, the causes
 * (the first is the one the first line names), the JSON (schema version 2, docs/doctor.md),
 * the first line and the short text to paste into a chat, in the process's language. It
 * holds no secret. Copies share the library's report, which any thread may read. */
struct Diagnosis {
    Verdict verdict = Verdict::Pass;
    std::vector<DiagnosisStep> steps;
    std::vector<DiagnosisCause> causes;
    std::string json;
    std::string text;
    std::string first_line;

    /* Whether a step failed. */
    [[nodiscard]] bool failed() const noexcept { return verdict == Verdict::Fail; }

    /* The text in `language` (verify_diagnosis_text_in): "zh-CN", "zh-TW", "en", or any BCP 47
     * tag or POSIX locale, mapped as verify::set_language maps it; empty for the process's
     * language. Throws verify::Error (invalid argument) for a tag that is not well formed, or
     * for a Diagnosis that verify::diagnose did not make. */
    [[nodiscard]] std::string text_in(std::string_view language) const {
        std::string tag = detail::arg(language, "language");
        const char *out = nullptr;
        detail::check_read(verify_diagnosis_text_in(report_.get(), tag.c_str(), &out));
        return detail::copy(out);
    }

    /* The first line in `language` (verify_diagnosis_first_line); empty: the process's. */
    [[nodiscard]] std::string first_line_in(std::string_view language) const {
        std::string tag = detail::arg(language, "language");
        const char *out = nullptr;
        detail::check_read(verify_diagnosis_first_line(report_.get(), tag.c_str(), &out));
        return detail::copy(out);
    }

    /* The support file in `language` (empty: the process's): what the program saves for its
     * vendor ("send this file to the vendor"), redacted as the report is. */
    [[nodiscard]] std::string support_file(std::string_view language = {}) const {
        std::string tag = detail::arg(language, "language");
        const char *out = nullptr;
        detail::check_read(verify_diagnosis_support_file(report_.get(), tag.c_str(), &out));
        return detail::copy(out);
    }

    /* Saves the support file in `language` at `path` (verify_diagnosis_save); throws
     * verify::Error (codes::err_system) when it cannot be written. */
    void save(std::string_view path, std::string_view language = {}) const {
        std::string file = detail::arg(path, "path");
        std::string tag = detail::arg(language, "language");
        detail::check_ok(verify_diagnosis_save(report_.get(), tag.c_str(), file.c_str()));
    }

  private:
    friend Diagnosis diagnose(std::string_view, std::string_view, std::string_view, const ClientOptions &,
                              std::chrono::milliseconds);
    friend Diagnosis diagnose(const Client &, const std::function<void(const DiagnosisStep &)> &, const CancelToken *,
                              std::chrono::milliseconds);
    friend Diagnosis detail_read_diagnosis(verify_diagnosis *raw);
    std::shared_ptr<const verify_diagnosis> report_;
};

namespace detail {

/* What verify::diagnose(client, on_step) hands the step callback: the function, and an
 * exception it threw (kept, thrown again once the doctor has finished: none unwinds through
 * the library). */
struct DiagnosisListener {
    const std::function<void(const DiagnosisStep &)> *on_step;
    std::exception_ptr thrown;

    /* `user_data` is the listener. Declared with VERIFY_CALL, as verify_diagnosis_callback
     * is (stdcall on 32-bit Windows). */
    static void VERIFY_CALL deliver(void *user_data, std::int32_t kind, std::int32_t verdict, const char *key,
                                    const char *sentence) noexcept {
        auto *heard = static_cast<DiagnosisListener *>(user_data);
        if (heard->thrown) {
            return;
        }
        try {
            DiagnosisStep step{static_cast<DiagnosisStepKind>(kind), static_cast<Verdict>(verdict), copy(key),
                               std::string(), copy(sentence)};
            (*heard->on_step)(step);
        } catch (...) {
            heard->thrown = std::current_exception();
        }
    }
};

}  // namespace detail

/* Copies a report made by the library out of it (the Diagnosis keeps it). */
[[nodiscard]] inline Diagnosis detail_read_diagnosis(verify_diagnosis *raw) {
    Diagnosis report;
    report.report_ = std::shared_ptr<const verify_diagnosis>(
        raw, [](const verify_diagnosis *d) { verify_diagnosis_free(const_cast<verify_diagnosis *>(d)); });
    std::int32_t verdict = 0;
    verify_diagnosis_verdict(raw, &verdict);
    report.verdict = static_cast<Verdict>(verdict);
    const char *text = nullptr;
    if (verify_diagnosis_json(raw, &text) == 0) {
        report.json = detail::copy(text);
    }
    if (verify_diagnosis_text(raw, &text) == 0) {
        report.text = detail::copy(text);
    }
    if (verify_diagnosis_first_line(raw, nullptr, &text) == 0) {
        report.first_line = detail::copy(text);
    }
    std::size_t count = 0;
    verify_diagnosis_count(raw, &count);
    for (std::size_t i = 0; i < count; ++i) {
        std::int32_t kind = 0;
        std::int32_t step_verdict = 0;
        const char *step_key = nullptr;
        const char *message = nullptr;
        if (verify_diagnosis_step(raw, i, &kind, &step_verdict, &step_key, &message) != 0) {
            break;
        }
        const char *sentence = nullptr;
        verify_diagnosis_step_text(raw, i, nullptr, &sentence);
        report.steps.push_back(DiagnosisStep{static_cast<DiagnosisStepKind>(kind), static_cast<Verdict>(step_verdict),
                                             detail::copy(step_key), detail::copy(message), detail::copy(sentence)});
    }
    for (std::size_t nth = 0;; ++nth) {
        DiagnosisCause cause;
        std::int32_t actor = 0;
        const char *key = nullptr;
        const char *sentence = nullptr;
        if (verify_diagnosis_cause(raw, nth, nullptr, &cause.step, &actor, &key, &sentence) != 0) {
            break;
        }
        cause.actor = static_cast<DiagnosisActor>(actor);
        cause.key = detail::copy(key);
        cause.sentence = detail::copy(sentence);
        report.causes.push_back(std::move(cause));
    }
    return report;
}

/* The doctor (verify_diagnose): runs every step a login depends on with the same URL, AppId,
 * AppKey and options as the program's Client, within `deadline` (default 10 s), and returns
 * the report. It never logs in and changes nothing on the server (Init is its only request).
 * A report is returned whatever its steps say; throws verify::Error only for arguments the
 * library refuses (options that do not map, such as a pin that is not base64). */
[[nodiscard]] inline Diagnosis diagnose(std::string_view base_url, std::string_view app_id, std::string_view app_key,
                          const ClientOptions &options = {},
                          std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    std::string url = detail::arg(base_url, "base_url");
    std::string id = detail::arg(app_id, "app_id");
    std::string key = detail::arg(app_key, "app_key");
    // The log function, if any, is used during the call only.
    LogHandler on_log = options.on_log;
    detail::ClientOptionsPtr settings = detail::client_options(options, &on_log);
    verify_diagnosis *raw = nullptr;
    detail::check_ok(verify_diagnose(url.c_str(), id.c_str(), key.c_str(), settings.get(),
                                     detail::to_ms(deadline, "deadline"), &raw));
    return detail_read_diagnosis(raw);
}

/* The doctor with the settings `client` was made with (verify_client_diagnose): the
 * program runs it itself, so support never needs its AppKey. `on_step` (optional) is called
 * with each step as the steps finish, on the calling thread, for a progress display (an
 * exception it throws is kept and thrown again once the doctor has finished); `cancel`
 * (optional) stops it within 50 ms (then this throws verify::Error codes::err_cancelled).
 * Returns within `deadline` whatever the network does; throws verify::Error for a client
 * moved from. */
[[nodiscard]] inline Diagnosis diagnose(const Client &client,
                                        const std::function<void(const DiagnosisStep &)> &on_step = {},
                                        const CancelToken *cancel = nullptr,
                                        std::chrono::milliseconds deadline = std::chrono::seconds(10)) {
    detail::DiagnosisListener listener{&on_step, nullptr};
    verify_diagnosis_callback callback = on_step ? &detail::DiagnosisListener::deliver : nullptr;
    if (client.get() == nullptr) {
        detail::fail(codes::err_invalid_argument, "use of an empty (moved-from) verify::Client");
    }
    verify_diagnosis *raw = nullptr;
    std::int32_t code = verify_client_diagnose(client.get(), cancel != nullptr ? cancel->get() : nullptr,
                                               detail::to_ms(deadline, "deadline"), callback, &listener, &raw);
    Diagnosis report = raw != nullptr ? detail_read_diagnosis(raw) : Diagnosis{};
    if (listener.thrown) {
        std::rethrow_exception(listener.thrown);
    }
    detail::check_ok(code);
    return report;
}

}  // namespace verify

#endif /* VERIFY_DIAGNOSE_HPP */
