using System;

namespace Verify
{
    /// <summary>One step of a <see cref="Diagnosis"/>.</summary>
    public sealed class DiagnosisStep
    {
        internal DiagnosisStep(DiagnosisStepKind kind, Verdict verdict, string key, string message)
        {
            Kind = kind;
            Verdict = verdict;
            Key = key;
            Message = message;
        }

        /// <summary>What it checked.</summary>
        public DiagnosisStepKind Kind { get; private set; }
        /// <summary>How it went.</summary>
        public Verdict Verdict { get; private set; }
        /// <summary>Its stable key ("tls.pin_mismatch", "init.1011"...), for messages in another language.</summary>
        public string Key { get; private set; }
        /// <summary>Its English sentence.</summary>
        public string Message { get; private set; }
    }
}
