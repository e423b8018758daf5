/*
 * verify/diagnose.hpp: the doctor, verify::diagnose(): every step a login depends on, checked
 * with the program's settings, and its report.
 */

#ifndef VERIFY_DIAGNOSE_HPP
#define VERIFY_DIAGNOSE_HPP

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include "../verify.h"
#include "detail/call.hpp"
#include "options.hpp"

namespace verify {

/* One step of the doctor's report: what it checked, how it went, its stable key (such as
 * "tls.pin_mismatch" or "init.1011", for messages in another language) and its sentence. */
struct DiagnosisStep {
    DiagnosisStepKind kind = DiagnosisStepKind::Options;
    Verdict verdict = Verdict::Pass;
    std::string key;
    std::string message;
};

/* The doctor's report, copied out of the library: the worst verdict, every step, the JSON
 * (schema version 1, docs/doctor.md) and the short text to paste into a chat, in the
 * process's language. It holds no secret. Copies share the library's report, which any
 * thread may read. */
struct Diagnosis {
    Verdict verdict = Verdict::Pass;
    std::vector<DiagnosisStep> steps;
    std::string json;
    std::string text;

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

  private:
    friend Diagnosis diagnose(std::string_view, std::string_view, std::string_view, const ClientOptions &,
                              std::chrono::milliseconds);
    std::shared_ptr<const verify_diagnosis> report_;
};

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
        report.steps.push_back(DiagnosisStep{static_cast<DiagnosisStepKind>(kind), static_cast<Verdict>(step_verdict),
                                             detail::copy(step_key), detail::copy(message)});
    }
    return report;
}

}  // namespace verify

#endif /* VERIFY_DIAGNOSE_HPP */
