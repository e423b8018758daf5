using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>One step of a <see cref="Diagnosis"/>.</summary>
    [NullableContext(1)]
    public sealed class DiagnosisStep
    {
        internal DiagnosisStep(DiagnosisStepKind kind, Verdict verdict, string key, string message, string text)
        {
            Kind = kind;
            Verdict = verdict;
            Key = key;
            Message = message;
            Text = text;
        }

        /// <summary>What it checked.</summary>
        public DiagnosisStepKind Kind { get; private set; }
        /// <summary>How it went.</summary>
        public Verdict Verdict { get; private set; }
        /// <summary>Its stable key ("tls.pin_mismatch", "init.1011"...), for messages in another language.</summary>
        public string Key { get; private set; }
        /// <summary>Its English sentence, for developers (empty for a step handed to a progress function).</summary>
        public string Message { get; private set; }
        /// <summary>Its sentence in the process's language (verify_diagnosis_step_text).</summary>
        public string Text { get; private set; }
    }
}
