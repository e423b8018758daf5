using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>
    /// The doctor's report (<see cref="Library.Diagnose"/>, <see cref="Client.Diagnose"/>): the
    /// worst verdict, every step, the causes, the first line (the first cause, what to do and
    /// who acts), the JSON (schema version 2, docs/doctor.md) and the short text to paste into
    /// a chat, copied out of the library; it keeps the native report for
    /// <see cref="TextIn(string)"/>, <see cref="FirstLineIn(string)"/>,
    /// <see cref="SupportFile(string)"/> and <see cref="Save(string, string)"/> (no Dispose: the
    /// garbage collector frees it with this object). It holds no secret. Any thread.
    /// </summary>
    [NullableContext(1)]
    public sealed class Diagnosis
    {
        private readonly DiagnosisHandle handle;

        internal Diagnosis(Verdict verdict, IReadOnlyList<DiagnosisStep> steps, IReadOnlyList<DiagnosisCause> causes, string json,
            string text, string firstLine, DiagnosisHandle handle)
        {
            Verdict = verdict;
            Steps = steps;
            Causes = causes;
            Json = json;
            Text = text;
            FirstLine = firstLine;
            this.handle = handle;
        }

        /// <summary>
        /// The report a native call gave with <paramref name="code"/>: read out of the library
        /// (the Diagnosis keeps the handle), or the thread's last error thrown and the handle
        /// freed.
        /// </summary>
        internal static Diagnosis Take(int code, [Nullable(2)] DiagnosisHandle report)
        {
            bool kept = false;
            try
            {
                if (code != (int)ResultCode.Ok || report == null)
                {
                    throw VerifyException.FromLastError((ResultCode)code);
                }
                Diagnosis diagnosis = report.With(p => Read(p, report));
                kept = true;
                return diagnosis;
            }
            finally
            {
                if (report != null && !kept)
                {
                    report.Dispose();
                }
            }
        }

        /// <summary>Copies the report at <paramref name="report"/> out of the library; the Diagnosis keeps <paramref name="handle"/>.</summary>
        internal static Diagnosis Read(DiagnosisHandle report, DiagnosisHandle handle)
        {
            int verdict;
            NativeMethods.verify_diagnosis_verdict(report, out verdict);
            IntPtr text;
            string json = NativeMethods.verify_diagnosis_json(report, out text) == 0 ? Utf8.FromNative(text) : "";
            string plain = NativeMethods.verify_diagnosis_text(report, out text) == 0 ? Utf8.FromNative(text) : "";
            string first = NativeMethods.verify_diagnosis_first_line(report, null, out text) == 0 ? Utf8.FromNative(text) : "";
            UIntPtr count;
            NativeMethods.verify_diagnosis_count(report, out count);
            List<DiagnosisStep> steps = new List<DiagnosisStep>();
            for (ulong i = 0; i < count.ToUInt64(); i++)
            {
                int kind, stepVerdict;
                IntPtr key, message, sentence;
                if (NativeMethods.verify_diagnosis_step(report, new UIntPtr(i), out kind, out stepVerdict, out key, out message) != 0)
                {
                    break;
                }
                string said = NativeMethods.verify_diagnosis_step_text(report, new UIntPtr(i), null, out sentence) == 0
                    ? Utf8.FromNative(sentence) : "";
                steps.Add(new DiagnosisStep((DiagnosisStepKind)kind, (Verdict)stepVerdict,
                    Utf8.FromNative(key), Utf8.FromNative(message), said));
            }
            List<DiagnosisCause> causes = new List<DiagnosisCause>();
            for (ulong nth = 0; ; nth++)
            {
                UIntPtr index;
                int actor;
                IntPtr key, sentence;
                if (NativeMethods.verify_diagnosis_cause(report, new UIntPtr(nth), null, out index, out actor, out key, out sentence) != 0)
                {
                    break;
                }
                causes.Add(new DiagnosisCause((int)index.ToUInt64(), (DiagnosisActor)actor,
                    Utf8.FromNative(key), Utf8.FromNative(sentence)));
            }
            return new Diagnosis((Verdict)verdict, steps.AsReadOnly(), causes.AsReadOnly(), json, plain, first, handle);
        }

        /// <summary>The worst verdict of the steps (Pass when every step passed or was skipped).</summary>
        public Verdict Verdict { get; private set; }
        /// <summary>Every step, in the report's order.</summary>
        public IReadOnlyList<DiagnosisStep> Steps { get; private set; }
        /// <summary>The causes (steps that warned or failed and follow from no other), the first line's first; empty when the report passed.</summary>
        public IReadOnlyList<DiagnosisCause> Causes { get; private set; }
        /// <summary>
        /// The first line in the process's language when the report was read: the first cause's
        /// verdict, what is wrong and what to do, and who acts (the user, or the software's
        /// vendor); for a report without a cause, that the connection is fine.
        /// </summary>
        public string FirstLine { get; private set; }
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
            return Borrowed((DiagnosisHandle report, out IntPtr native) =>
                NativeMethods.verify_diagnosis_text_in(report, language, out native));
        }

        /// <summary>The first line (<see cref="FirstLine"/>) in <paramref name="language"/>, as <see cref="TextIn(string)"/> takes it. Any thread.</summary>
        /// <param name="language">A language tag, or null or empty for <see cref="Library.Language"/>.</param>
        /// <returns>The first line.</returns>
        /// <exception cref="VerifyException">A tag that is not well formed: <see cref="ResultCode.InvalidArgument"/>.</exception>
        public string FirstLineIn([Nullable(2)] string language)
        {
            return Borrowed((DiagnosisHandle report, out IntPtr native) =>
                NativeMethods.verify_diagnosis_first_line(report, language, out native));
        }

        /// <summary>
        /// The support file in <paramref name="language"/> (verify_diagnosis_support_file): a
        /// line asking to send it to the software's vendor, the text in that language and in
        /// English, and the JSON; redacted as the report is. Any thread.
        /// </summary>
        /// <param name="language">A language tag, or null or empty for <see cref="Library.Language"/>.</param>
        /// <returns>The file's text.</returns>
        /// <exception cref="VerifyException">A tag that is not well formed: <see cref="ResultCode.InvalidArgument"/>.</exception>
        public string SupportFile([Nullable(2)] string language = null)
        {
            return Borrowed((DiagnosisHandle report, out IntPtr native) =>
                NativeMethods.verify_diagnosis_support_file(report, language, out native));
        }

        /// <summary>Saves the support file (<see cref="SupportFile(string)"/>) at <paramref name="path"/> (verify_diagnosis_save). Any thread.</summary>
        /// <param name="path">Where to write it (a file written whole, then renamed over it).</param>
        /// <param name="language">A language tag, or null or empty for <see cref="Library.Language"/>.</param>
        /// <exception cref="ArgumentNullException"><paramref name="path"/> is null.</exception>
        /// <exception cref="ArgumentException"><paramref name="path"/> is empty or holds a NUL character.</exception>
        /// <exception cref="VerifyException">It cannot be written (<see cref="ResultCode.System"/>), or a malformed tag.</exception>
        public void Save(string path, [Nullable(2)] string language = null)
        {
            Args.Required(path, "path");
            int code = handle.With(report => NativeMethods.verify_diagnosis_save(report, language, path));
            if (code != (int)ResultCode.Ok)
            {
                throw VerifyException.FromLastError((ResultCode)code);
            }
        }

        private delegate int Reader(DiagnosisHandle report, out IntPtr native);

        /// <summary>A string the report lends, copied while the handle is held.</summary>
        private string Borrowed(Reader read)
        {
            string text = null;
            int code = handle.With(report =>
            {
                IntPtr native;
                int result = read(report, out native);
                if (result == 0)
                {
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
