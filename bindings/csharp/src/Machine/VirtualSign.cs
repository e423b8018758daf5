using System;

namespace Verify
{
    /// <summary>One sign of virtualisation.</summary>
    public sealed class VirtualSign
    {
        internal VirtualSign(VirtualSignKind kind, string detail)
        {
            Kind = kind;
            Detail = detail;
        }

        /// <summary>What it is.</summary>
        public VirtualSignKind Kind { get; private set; }
        /// <summary>What was seen (a vendor string, a file name; never an identity).</summary>
        public string Detail { get; private set; }
    }
}
