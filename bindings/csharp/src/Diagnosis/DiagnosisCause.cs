using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>
    /// A cause a <see cref="Diagnosis"/> found: a step that warned or failed and follows from no
    /// other (verify_diagnosis_cause). The first is the one the report's first line names.
    /// </summary>
    [NullableContext(1)]
    public sealed class DiagnosisCause
    {
        internal DiagnosisCause(int step, DiagnosisActor actor, string key, string sentence)
        {
            Step = step;
            Actor = actor;
            Key = key;
            Sentence = sentence;
        }

        /// <summary>The index of its step in <see cref="Diagnosis.Steps"/>.</summary>
        public int Step { get; private set; }
        /// <summary>Who acts on it: the user (this computer, its network) or the software's vendor.</summary>
        public DiagnosisActor Actor { get; private set; }
        /// <summary>Its stable key ("tls.pin_mismatch", "init.1011"...).</summary>
        public string Key { get; private set; }
        /// <summary>What is wrong and what to do, in the process's language when the report was read.</summary>
        public string Sentence { get; private set; }
    }
}
