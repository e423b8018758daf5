using System;

namespace Verify
{
    /// <summary>What a step of the doctor checked (VERIFY_STEP_*); later values are kept as their numbers.</summary>
    public enum DiagnosisStepKind
    {
        /// <summary>The options themselves.</summary>
        Options = 1,
        /// <summary>A line's name lookup.</summary>
        Lookup = 2,
        /// <summary>A TCP connect to one address of a line.</summary>
        Tcp = 3,
        /// <summary>The proxy.</summary>
        Proxy = 4,
        /// <summary>The TLS handshake with one address of a line.</summary>
        Tls = 5,
        /// <summary>The local clock against the server's.</summary>
        Clock = 6,
        /// <summary>The Init handshake.</summary>
        Init = 7,
        /// <summary>The offline store.</summary>
        Offline = 8,
        /// <summary>Machine code v2's check.</summary>
        Machine = 9,
    }
}
