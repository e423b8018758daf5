using System;
using System.Runtime.CompilerServices;

namespace Verify
{
    /// <summary>The server's <c>status</c> words as <see cref="LicenceState"/>.</summary>
    [NullableContext(1)]
    public static class LicenceStates
    {
        /// <summary>The state the word <paramref name="status"/> names (case-insensitive), or <see cref="LicenceState.Unknown"/>.</summary>
        /// <param name="status">A reply's <c>status</c>, or null.</param>
        public static LicenceState Parse([Nullable(2)] string status)
        {
            switch ((status ?? string.Empty).Trim().ToLowerInvariant())
            {
                case "unused": return LicenceState.Unused;
                case "active": return LicenceState.Active;
                case "expired": return LicenceState.Expired;
                case "exhausted": return LicenceState.Exhausted;
                case "used": return LicenceState.Used;
                case "disabled": return LicenceState.Disabled;
                case "refunded": return LicenceState.Refunded;
                case "banned": return LicenceState.Banned;
                default: return LicenceState.Unknown;
            }
        }
    }
}
