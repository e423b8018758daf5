using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>
    /// The doctor's report (<see cref="Library.Diagnose"/>): the worst verdict, every step, the
    /// JSON (schema version 1, docs/doctor.md) and the short text to paste into a chat, copied
    /// out of the library; it keeps the native report for <see cref="TextIn(string)"/> (no
    /// Dispose: the garbage collector frees it with this object). It holds no secret. Any
    /// thread.
    /// </summary>
    [NullableContext(1)]
    public sealed class Diagnosis
    {
        private readonly DiagnosisHandle handle;

        internal Diagnosis(Verdict verdict, IReadOnlyList<DiagnosisStep> steps, string json, string text, DiagnosisHandle handle)
        {
            Verdict = verdict;
            Steps = steps;
            Json = json;
            Text = text;
            this.handle = handle;
        }

        /// <summary>The worst verdict of the steps (Pass when every step passed or was skipped).</summary>
        public Verdict Verdict { get; private set; }
        /// <summary>Every step, in the report's order.</summary>
        public IReadOnlyList<DiagnosisStep> Steps { get; private set; }
        /// <summary>The report as JSON.</summary>
        public string Json { get; private set; }
        /// <summary>
        /// The report as a short text, one line a step (verify_diagnosis_text): each line the
        /// step's verdict and name (<c>FAIL init</c>), the line and address, and the step's
        /// sentence in the process's language when <see cref="Library.Diagnose"/> ran
        /// (<see cref="Library.Language"/>). <see cref="TextIn(string)"/> gives it in another.
        /// </summary>
        public string Text { get; private set; }

        /// <summary>
        /// The report's short text (<see cref="Text"/>) in <paramref name="language"/>
        /// (verify_diagnosis_text_in): "zh-CN", "zh-TW", "en", or any language tag or POSIX
        /// locale, mapped as <see cref="Library.Language"/> maps it (languages other than Chinese
        /// are English); null or empty for the process's language now. Any thread.
        /// </summary>
        /// <param name="language">A language tag ("zh-CN", "zh-Hant-HK", "en-US", "zh_CN.UTF-8"...), or null or empty for <see cref="Library.Language"/>.</param>
        /// <returns>The text, one line a step.</returns>
        /// <exception cref="VerifyException">A tag that is not well formed (ASCII letters, digits, <c>-</c>, <c>_</c>, <c>.</c>, <c>@</c>, at most 64 bytes): <see cref="ResultCode.InvalidArgument"/>.</exception>
        public string TextIn([Nullable(2)] string language)
        {
            string text = null;
            int code = handle.With(report =>
            {
                IntPtr native;
                int result = NativeMethods.verify_diagnosis_text_in(report, language, out native);
                if (result == 0)
                {
                    // Borrowed from the report: copied while the handle is held.
                    text = Utf8.FromNative(native);
                }
                return result;
            });
            if (code != 0)
            {
                throw VerifyException.FromLastError((ResultCode)code);
            }
            return text;
        }
        /// <summary>Whether a step failed.</summary>
        public bool Failed { get { return Verdict == Verdict.Fail; } }
    }
}
