using System;
using System.Collections.Generic;

namespace Verify
{
    /// <summary>
    /// The doctor's report (<see cref="Library.Diagnose"/>), copied out of the library: the worst
    /// verdict, every step, the JSON (schema version 1, docs/doctor.md) and the short text to
    /// paste into a chat. It holds no secret.
    /// </summary>
    public sealed class Diagnosis
    {
        internal Diagnosis(Verdict verdict, IList<DiagnosisStep> steps, string json, string text)
        {
            Verdict = verdict;
            Steps = steps;
            Json = json;
            Text = text;
        }

        /// <summary>The worst verdict of the steps (Pass when every step passed or was skipped).</summary>
        public Verdict Verdict { get; private set; }
        /// <summary>Every step, in the report's order.</summary>
        public IList<DiagnosisStep> Steps { get; private set; }
        /// <summary>The report as JSON.</summary>
        public string Json { get; private set; }
        /// <summary>The report as a short English text, one line a step.</summary>
        public string Text { get; private set; }
        /// <summary>Whether a step failed.</summary>
        public bool Failed { get { return Verdict == Verdict.Fail; } }
    }
}
