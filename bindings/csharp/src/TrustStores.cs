using System;

namespace Verify
{
    /// <summary>The trust stores of a client (VERIFY_TRUST_*), for <see cref="ClientOptions.Trust"/>.</summary>
    [Flags]
    public enum TrustStores : uint
    {
        /// <summary>None: only the roots and pins added to the options are trusted.</summary>
        None = 0,

        /// <summary>Mozilla's root certificates (the default).</summary>
        Mozilla = 1,

        /// <summary>The operating system's trust store (company CAs and the like).</summary>
        System = 2,
    }
}
